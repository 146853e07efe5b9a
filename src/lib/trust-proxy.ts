// TIDINGS_TRUST_PROXY: which peers may name the client in X-Forwarded-For. The answer is never "any peer":
// that lets every client pick its own address for the login throttle and the country of opens. Fastify
// (proxy-addr) takes the result as is: a hop count, or a list of proxy addresses and CIDR ranges.
import ipaddr from 'ipaddr.js'

/** false: no proxy; n: the n nearest hops are proxies; a list: only these peers are. */
export type TrustProxy = false | number | string[]

/** proxy-addr's names for whole ranges: 127.0.0.0/8 and ::1; 169.254.0.0/16 and fe80::/10; 10/8, 172.16/12, 192.168/16 and fc00::/7. */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal'])

/**
 * Reads the setting from the environment (text), a config file (JSON) or code. `true` means 1: the one
 * reverse proxy in front of Tidings, whose own X-Forwarded-For entry is the last one; the entries a client
 * wrote before it are ignored (before, `true` trusted them all). Throws on anything else.
 */
export function parseTrustProxy(value: unknown): TrustProxy {
  if (value === undefined || value === false || value === 0) return false
  if (value === true) return 1
  if (typeof value === 'number') return hopCount(value)
  if (Array.isArray(value)) return proxyList(value)
  if (typeof value !== 'string') throw new Error('expected false, true, a hop count or a list of proxy addresses')
  const text = value.trim().toLowerCase()
  if (text === '' || text === 'false') return false
  if (text === 'true') return 1
  if (/^\d+$/.test(text)) return hopCount(Number(text))
  return proxyList(text.split(','))
}

function hopCount(n: number): TrustProxy {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`a hop count is a whole number of proxies, got ${n}`)
  return n === 0 ? false : n
}

function proxyList(entries: unknown[]): string[] {
  const list = entries.map((entry) => (typeof entry === 'string' ? entry.trim() : ''))
  for (const entry of list) {
    if (!isProxyAddress(entry)) throw new Error(`"${entry}" is not an IP address, a CIDR range or one of ${[...NAMED_RANGES].join(', ')}`)
  }
  if (list.length === 0) throw new Error('the list of proxies is empty')
  return list
}

function isProxyAddress(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true
  const [address = '', prefix, ...rest] = entry.split('/')
  if (rest.length > 0 || !isPlainAddress(address)) return false
  if (prefix === undefined) return true
  const bits = ipaddr.parse(address).kind() === 'ipv4' ? 32 : 128
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= bits
}

/** Dotted-quad IPv4 or IPv6 only: ipaddr.js also reads `10` or `0x0a.1` as IPv4, which nobody means here. */
function isPlainAddress(text: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(text) || ipaddr.IPv6.isValid(text)
}

/**
 * Fastify's `trustProxy` option. Fastify 5.12 treats a bare number as "trust nobody" (a hop count cannot
 * tell a proxy from a client connecting directly), so a hop count becomes proxy-addr's trust function:
 * hop 0 is the peer, hop 1 the last X-Forwarded-For entry, and so on.
 */
export function fastifyTrustProxy(setting: boolean | number | string[]): false | string[] | ((address: string, hop: number) => boolean) {
  const trust = parseTrustProxy(setting)
  if (typeof trust === 'number') return (_address, hop) => hop < trust
  return trust
}
