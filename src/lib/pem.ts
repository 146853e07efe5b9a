// Private keys given as settings: PEM text, or the path of a PEM file (TIDINGS_DKIM_PRIVATE_KEY,
// TIDINGS_VIBER_PRIVATE_KEY). Errors say what is wrong without ever showing the value: it may be the key itself.
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto'
import { readFileSync } from 'node:fs'

/** The PEM text of a setting: the value itself when it holds a PEM block, else the text of the file it names. */
export function pemTextOf(value: string): string {
  return value.includes('-----BEGIN') ? value : readFileSync(value, 'utf8')
}

/** RS256 with a shorter modulus is refused by jose (and by RFC 7518 §3.3): 2048 bits at least. */
const MIN_RSA_BITS = 2048

/**
 * The RSA private key a setting holds, PKCS#8 (`BEGIN PRIVATE KEY`, as Vonage issues them) or PKCS#1
 * (`BEGIN RSA PRIVATE KEY`). Throws an Error saying why not, without the value in it.
 */
export function rsaPrivateKeyOf(value: string): KeyObject {
  let text: string
  try {
    text = pemTextOf(value)
  } catch (err) {
    // Not the path: the value may be a key pasted without its BEGIN line.
    throw new Error(`neither PEM text nor the path of a readable file (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`)
  }
  // Refused before OpenSSL sees it: without a passphrase it would fail obscurely (or ask for one on a terminal).
  if (/ENCRYPTED/.test(text)) throw new Error('the private key is encrypted: give it without a passphrase')
  let key: KeyObject
  try {
    key = createPrivateKey({ key: text, format: 'pem' })
  } catch {
    const hint = text.includes('\\n') && !text.includes('\n') ? ' (it has `\\n` where line breaks belong: give real line breaks, or the path of the file)' : ''
    throw new Error(`not a PEM private key${hint}`)
  }
  if (key.asymmetricKeyType !== 'rsa') throw new Error(`an RSA private key is needed, this one is ${key.asymmetricKeyType ?? 'not asymmetric'}`)
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0
  if (bits < MIN_RSA_BITS) throw new Error(`the RSA key has ${bits} bits, RS256 needs ${MIN_RSA_BITS} at least`)
  // OpenSSL reads a key whose modulus was damaged (a changed character in its first lines) without a word; its
  // signatures then fail to verify, and every request would be refused. One signature (~1 ms) finds it out.
  const probe = Buffer.from('tidings')
  if (!verify('sha256', probe, createPublicKey(key), sign('sha256', probe, key))) throw new Error('the private key is damaged: its signature does not verify')
  return key
}
