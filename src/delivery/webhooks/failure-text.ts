// The text of a failed webhook request as the customer reads it (delivery log, failed events): it names the
// host of their URL, never an address the name resolved to. Node's errors carry the address ("connect
// ECONNREFUSED 10.1.2.3:443"), and a log of them would let anyone with an account map the network the
// service runs in by pointing webhooks at internal host names.
import net from 'node:net'

/** A system error as Node raises it from a socket: `syscall code address:port`. */
type SocketError = Error & { code?: string; syscall?: string; address?: string; port?: number }

/** Runs of address characters ending in a digit: every IPv4 or IPv6 literal, with or without `:port`. */
const ADDRESS_LIKE = /(?:[0-9a-f]*[:.])+[0-9a-f]+/gi

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
  return text.replace(ADDRESS_LIKE, (token) => {
    if (net.isIP(token) !== 0) return token === own ? token : target.hostname
    const withPort = /^(.*):(\d+)$/.exec(token)
    if (withPort && net.isIP(withPort[1]!) !== 0 && withPort[1] !== own) return `${target.hostname}:${withPort[2]}`
    return token
  })
}

function hostAndPort(target: URL): string {
  return `${target.hostname}:${target.port || (target.protocol === 'https:' ? '443' : '80')}`
}

/** An IPv6 host without the brackets URL keeps around it. */
function bare(hostname: string): string {
  return hostname.replace(/^\[(.*)\]$/, '$1')
}
