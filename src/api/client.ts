export interface ApiClient {
  close(): Promise<void>;
}
