// The ready-to-paste command that calls a hook, for the one time its secret is shown.

/** Single-quotes a value for a POSIX shell. */
function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export function curlLine(url: string, secret: string): string {
  return `curl -X POST -H ${shellQuote(`X-Sentient-Secret: ${secret}`)} -H 'Content-Type: application/json' -d '{"status":"failed"}' ${shellQuote(url)}`;
}
