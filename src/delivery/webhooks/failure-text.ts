// The text of a failed webhook request as the customer reads it (delivery log, failed events): it names the
// host of their URL, never an address the name resolved to. Node's errors carry the address ("connect
// ECONNREFUSED 10.1.2.3:443"), and a log of them would let anyone with an account map the network the
// service runs in by pointing webhooks at internal host names.
import net from 'node:net'

/** A system error as Node raises it from a socket: `syscall code address:port`. */
type SocketError = Error & { code?: string; syscall?: string; address?: string; port?: number }

/**
 * Runs of address characters: every IPv4 or IPv6 literal, with or without `:port`, is one. A single character
 * class repeated once keeps the scan linear; a pattern with nested repetition took 1.6 s on 20,000 dots, and
 * a webhook host of ~2,000 dots puts that many in the error text of every attempt.
 */
const ADDRESS_CHARACTERS = /[0-9a-f:.]+/gi

/** `err` as text that names `target`'s host where Node named the address it connected to. */
export function failureText(err: Error, target: URL): string {
  // With autoSelectFamily (Node 20's default) a failure on every address is an AggregateError whose message
  // may be empty; the first attempt's error says what went wrong.
  const cause = (err instanceof AggregateError && err.errors[0] instanceof Error ? err.errors[0] : err) as SocketError
  if (cause.syscall && cause.code && cause.address !== undefined) return `${cause.syscall} ${cause.code} ${hostAndPort(target)}`
  return withoutAddresses(err.message || cause.message || cause.code || 'request failed', target)
}

/** `text` with every IP address in it but the URL's own (the customer typed that one) replaced by the host name. */
export function withoutAddresses(text: string, target: URL): string {
  const own = bare(target.hostname)
  return text.replace(ADDRESS_CHARACTERS, (run) => {
    // A sentence's full stop or colon after an address ("… 10.0.0.5:443.") is no part of it.
    const end = endOfAddress(run)
    return shownAddress(run.slice(0, end), own, target.hostname) + run.slice(end)
  })
}

/** `token` (an address, maybe with `:port`) as the customer sees it: the host name unless they typed the address. */
function shownAddress(token: string, own: string, hostname: string): string {
  if (net.isIP(token) !== 0) return token === own ? token : hostname
  const colon = token.lastIndexOf(':')
  const [address, port] = [token.slice(0, colon), token.slice(colon + 1)]
  if (colon > 0 && /^\d+$/.test(port) && net.isIP(address) !== 0 && address !== own) return `${hostname}:${port}`
  return token
}

/** Where `run` ends once the dots and colons trailing it are left out (a loop: a regex anchored at $ backtracks). */
function endOfAddress(run: string): number {
  let end = run.length
  while (end > 0 && (run[end - 1] === '.' || run[end - 1] === ':')) end--
  return end
}

function hostAndPort(target: URL): string {
  return `${target.hostname}:${target.port || (target.protocol === 'https:' ? '443' : '80')}`
}

/** An IPv6 host without the brackets URL keeps around it. */
function bare(hostname: string): string {
  return hostname.replace(/^\[(.*)\]$/, '$1')
}
