// Segment counts as handsets count them, against known values: the limits of 3GPP TS 23.038/23.040 and the
// test data of two maintained calculators (Twilio's message-segment-calculator, split-sms), whose cases are
// restated here; the encoded bytes against the package's independent GSM 03.38 coder and the spec's examples.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import smpp from 'smpp'
import { encodeSmsText, fillBitsAfter, gsm7Septets, packSeptets, segmentsOf, smsEncodingOf, splitParts, ucs2Bytes } from '../../../src/delivery/sms/text.js'

const gsm = (n: number) => 'a'.repeat(n)
const cyrillic = (n: number) => 'ж'.repeat(n)
const EMOJI = '😜' // U+1F61C: a surrogate pair, two UTF-16 units

describe('SMS encoding', () => {
  it('is GSM-7 for the default alphabet and the extension table, UCS-2 for anything else', () => {
    assert.equal(smsEncodingOf('Hello @ £5, Ünïcode? no: ÄÖÑÜ§¿äöñüà ΔΦΓΛΩΠΨΣΘΞ\r\n'), 'ucs2', 'ï is not GSM-7')
    assert.equal(smsEncodingOf('Hello @ £5 ÄÖÑÜ§¿äöñüà ΔΦΓΛΩΠΨΣΘΞ\r\n Ç'), 'gsm7')
    assert.equal(smsEncodingOf('^{}\\[~]|€\f'), 'gsm7')
    assert.equal(smsEncodingOf('Привет'), 'ucs2')
    assert.equal(smsEncodingOf(`hi ${EMOJI}`), 'ucs2')
    assert.equal(smsEncodingOf('backtick `'), 'ucs2', '` is not in GSM 03.38')
    assert.equal(smsEncodingOf('ç'), 'ucs2', 'only the capital Ç is in the default alphabet')
    assert.equal(smsEncodingOf('\x1b'), 'ucs2', 'the escape code is not a character')
    assert.equal(smsEncodingOf(''), 'gsm7')
  })
})

describe('SMS segments', () => {
  it('GSM-7: 160 septets in one part, then parts of 153', () => {
    assert.deepEqual(segmentsOf(gsm(160)), { encoding: 'gsm7', units: 160, segments: 1 })
    assert.deepEqual(segmentsOf(gsm(161)), { encoding: 'gsm7', units: 161, segments: 2 })
    assert.deepEqual(segmentsOf(gsm(306)), { encoding: 'gsm7', units: 306, segments: 2 })
    assert.deepEqual(segmentsOf(gsm(307)), { encoding: 'gsm7', units: 307, segments: 3 })
    assert.deepEqual(segmentsOf(gsm(459)), { encoding: 'gsm7', units: 459, segments: 3 })
    assert.deepEqual(segmentsOf(gsm(460)), { encoding: 'gsm7', units: 460, segments: 4 })
  })

  it('GSM-7: an extension character counts two septets and never straddles two parts', () => {
    // Twilio's cases: `{` and 158 digits are 160 septets, one more character makes two parts.
    assert.deepEqual(segmentsOf(`{${'2'.repeat(158)}`), { encoding: 'gsm7', units: 160, segments: 1 })
    assert.deepEqual(segmentsOf(`{${'2'.repeat(159)}`), { encoding: 'gsm7', units: 161, segments: 2 })
    // split-sms: 80 extension characters fill one part.
    assert.equal(segmentsOf('|^€{}[~]\\'.repeat(9).slice(0, 80)).segments, 1)
    // € as the 153rd character: its two septets would be the 153rd and 154th, so it opens the second part.
    const euroAt153 = `${gsm(152)}€${gsm(7)}`
    assert.deepEqual(splitParts(euroAt153), [gsm(152), `€${gsm(7)}`])
    // 306 septets fit two parts exactly when nothing straddles; a € at 153 pushes one septet into a third.
    assert.deepEqual(segmentsOf(`${gsm(152)}€${gsm(152)}`), { encoding: 'gsm7', units: 306, segments: 3 })
    assert.deepEqual(segmentsOf(`${gsm(151)}€${gsm(153)}`), { encoding: 'gsm7', units: 306, segments: 2 })
    // split-sms: 159 characters and a final €: the € goes whole into the second part.
    assert.deepEqual(splitParts(`${gsm(159)}€`).map((p) => p.length), [153, 7])
  })

  it('UCS-2: 70 units in one part, then parts of 67', () => {
    assert.deepEqual(segmentsOf(cyrillic(70)), { encoding: 'ucs2', units: 70, segments: 1 })
    assert.deepEqual(segmentsOf(cyrillic(71)), { encoding: 'ucs2', units: 71, segments: 2 })
    assert.deepEqual(segmentsOf(cyrillic(134)), { encoding: 'ucs2', units: 134, segments: 2 })
    assert.deepEqual(segmentsOf(cyrillic(135)), { encoding: 'ucs2', units: 135, segments: 3 })
    assert.deepEqual(segmentsOf(`${gsm(69)}ж`), { encoding: 'ucs2', units: 70, segments: 1 }, 'one non-GSM character makes all of it UCS-2')
  })

  it('UCS-2: a surrogate pair counts two units and never straddles two parts', () => {
    // Twilio's cases: an emoji and 68 digits are 70 units; one more makes two parts.
    assert.deepEqual(segmentsOf(`${EMOJI}${'2'.repeat(68)}`), { encoding: 'ucs2', units: 70, segments: 1 })
    assert.deepEqual(segmentsOf(`${EMOJI}${'2'.repeat(69)}`), { encoding: 'ucs2', units: 71, segments: 2 })
    // split-sms: an emoji at the 67th unit goes whole into the second part.
    const parts = splitParts(`${cyrillic(66)}${EMOJI}${cyrillic(3)}`)
    assert.deepEqual(parts, [cyrillic(66), `${EMOJI}${cyrillic(3)}`])
    // 134 units that fit two parts by division, but not with a pair across the boundary.
    assert.deepEqual(segmentsOf(`${cyrillic(66)}${EMOJI}${cyrillic(66)}`), { encoding: 'ucs2', units: 134, segments: 3 })
    assert.deepEqual(segmentsOf(EMOJI.repeat(35)), { encoding: 'ucs2', units: 70, segments: 1 })
    assert.deepEqual(splitParts(EMOJI.repeat(36)).map((p) => [...p].length), [33, 3])
  })

  it('counts an empty text as one part', () => {
    assert.deepEqual(segmentsOf(''), { encoding: 'gsm7', units: 0, segments: 1 })
    assert.deepEqual(splitParts(''), [''])
  })

  it('splits into parts that join back into the text', () => {
    for (const text of [gsm(1000), `${'x€'.repeat(200)}`, cyrillic(500), `${EMOJI}ж`.repeat(100), 'short']) {
      const parts = splitParts(text)
      assert.equal(parts.join(''), text)
      assert.equal(parts.length, segmentsOf(text).segments)
    }
  })
})

describe('SMS bytes', () => {
  it('GSM-7 unpacked: one septet per octet, extension characters escaped, as the package decodes them', () => {
    const text = 'Hi @all: 5€ [ok] {x} ~|^\\ £¥ ΔΩ'
    const septets = gsm7Septets(text)
    assert.equal(septets[0], 0x48)
    assert.deepEqual([...gsm7Septets('@€')], [0x00, 0x1b, 0x65])
    assert.equal(smpp.gsmCoder.decode(septets), text)
    assert.deepEqual(encodeSmsText(text, 'gsm7'), septets)
    assert.throws(() => gsm7Septets('ж'), /not in the GSM 7-bit alphabet/)
  })

  it('GSM-7 packed: 8 septets in 7 octets (the "hellohello" example of GSM 03.38 references)', () => {
    assert.equal(packSeptets(gsm7Septets('hellohello')).toString('hex').toUpperCase(), 'E8329BFD4697D9EC37')
    // 7 septets leave 7 spare bits: a CR fills them so the handset does not see a trailing `@`.
    assert.equal(packSeptets(gsm7Septets('1234567')).toString('hex'), '31d98c56b3dd1a')
    assert.equal(packSeptets(gsm7Septets('1234567')).length, 7)
    // After a 6-octet UDH, one fill bit puts the first septet on a septet boundary.
    assert.equal(fillBitsAfter(6), 1)
    assert.equal(fillBitsAfter(0), 0)
    assert.deepEqual(encodeSmsText('A', 'gsm7', { gsm7Packing: 'packed', udhOctets: 6 }), Buffer.from([0x41 << 1]))
    assert.equal(encodeSmsText(gsm(153), 'gsm7', { gsm7Packing: 'packed', udhOctets: 6 }).length, 134, 'a full part fills the 134 octets after the UDH')
    assert.equal(encodeSmsText(gsm(160), 'gsm7', { gsm7Packing: 'packed' }).length, 140)
  })

  it('UCS-2: UTF-16 big endian, surrogate pairs as two units', () => {
    assert.deepEqual(ucs2Bytes('Жa'), Buffer.from([0x04, 0x16, 0x00, 0x61]))
    assert.deepEqual(encodeSmsText(EMOJI, 'ucs2'), Buffer.from([0xd8, 0x3d, 0xde, 0x1c]))
  })
})
