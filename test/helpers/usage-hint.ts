/**
 * The line that ends every usage error: it names the help of the command that was typed
 * (src/commands/help.ts), `payctl --help` when none was.
 */
export function usageHint(command = ''): string {
  return `(run \`payctl ${command === '' ? '' : `${command} `}--help\` for usage)`;
}
