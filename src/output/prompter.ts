export interface Prompter {
  close?(): void;
}
