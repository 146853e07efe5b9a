// Delivery receipt texts as SMSCs write them (SMPP 3.4 Appendix B and the variants seen in the wild), and the
// TLVs that win over the text.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { parseReceiptText, receiptOf, stateOfMessageState, stateOfStat } from '../../../src/delivery/sms/receipt.js'

const AT = 1_700_000_000_000

describe('receipt text', () => {
  it('reads the Appendix B form', () => {
    assert.deepEqual(parseReceiptText('id:0123456789 sub:001 dlvrd:001 submit date:2401151230 done date:2401151231 stat:DELIVRD err:000 Text:Hello there'), {
      id: '0123456789',
      stat: 'DELIVRD',
      err: '000',
      sub: '001',
      dlvrd: '001',
      submitDate: '2401151230',
      doneDate: '2401151231',
      text: 'Hello there',
    })
  })

  it('keeps ids as written: hexadecimal, decimal with leading zeros, UUIDs', () => {
    assert.equal(parseReceiptText('id:1F3A9C0B sub:001 dlvrd:001 submit date:2401151230 done date:2401151231 stat:DELIVRD err:000 text:')?.id, '1F3A9C0B')
    assert.equal(parseReceiptText('id:000004711 sub:001 dlvrd:001 stat:UNDELIV err:001 text:x')?.id, '000004711')
    assert.equal(parseReceiptText('id:5d0c2b5e-8f1a-4e6b-9a0f-3c2d1e0f9a8b stat:DELIVRD')?.id, '5d0c2b5e-8f1a-4e6b-9a0f-3c2d1e0f9a8b')
  })

  it('takes extra spaces, any case, underscores in the date names and a missing text', () => {
    const parsed = parseReceiptText('ID: 77  SUB:001  DLVRD:000 SUBMIT_DATE:2401151230  Done Date: 2401151231 Stat : undeliv  Err:034')
    assert.deepEqual(parsed, { id: '77', stat: 'UNDELIV', err: '034', sub: '001', dlvrd: '000', submitDate: '2401151230', doneDate: '2401151231', text: undefined })
  })

  it('reads `text:` to the end, even when it holds field names', () => {
    assert.equal(parseReceiptText('id:9 stat:DELIVRD err:000 Text:your id: 42 stat:ok')?.text, 'your id: 42 stat:ok')
    assert.equal(parseReceiptText('id:9 stat:DELIVRD err:000 Text:your id: 42 stat:ok')?.id, '9')
  })

  it('is no receipt without an id or a stat', () => {
    assert.equal(parseReceiptText('sub:001 dlvrd:001 stat:DELIVRD err:000'), undefined)
    assert.equal(parseReceiptText('id:123 sub:001 dlvrd:001 err:000 text:hi'), undefined)
    assert.equal(parseReceiptText('id: stat:DELIVRD'), undefined, 'an empty id')
    assert.equal(parseReceiptText('Hello, this is a reply from a handset'), undefined)
    assert.equal(parseReceiptText(''), undefined)
  })
})

describe('receipt states', () => {
  it('maps the stat values, short and long forms', () => {
    const cases: [string, string | undefined][] = [
      ['DELIVRD', 'delivered'], ['DELIVERED', 'delivered'], ['UNDELIV', 'undeliverable'], ['UNDELIVERABLE', 'undeliverable'],
      ['EXPIRED', 'expired'], ['REJECTD', 'rejected'], ['REJECTED', 'rejected'], ['DELETED', 'deleted'], ['ACCEPTD', 'accepted'],
      ['ENROUTE', 'enroute'], ['UNKNOWN', 'unknown'], ['delivrd', 'delivered'], ['BOGUS', undefined],
    ]
    for (const [stat, state] of cases) assert.equal(stateOfStat(stat), state, stat)
  })

  it('maps message_state values of SMPP 3.4 §5.2.28', () => {
    assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 8].map(stateOfMessageState), ['enroute', 'delivered', 'expired', 'deleted', 'undeliverable', 'accepted', 'unknown', 'rejected'])
    assert.equal(stateOfMessageState(42), undefined)
  })
})

describe('receipts', () => {
  it('are final except accepted and enroute; err:000 is no error', () => {
    assert.deepEqual(receiptOf({ text: 'id:A1 sub:001 dlvrd:001 stat:DELIVRD err:000 text:' }, AT), { providerId: 'A1', state: 'delivered', final: true, at: AT })
    assert.deepEqual(receiptOf({ text: 'id:A1 stat:UNDELIV err:001' }, AT), { providerId: 'A1', state: 'undeliverable', final: true, error: '001', at: AT })
    assert.deepEqual(receiptOf({ text: 'id:A1 stat:ACCEPTD err:000' }, AT), { providerId: 'A1', state: 'accepted', final: false, at: AT })
    assert.deepEqual(receiptOf({ text: 'id:A1 stat:ENROUTE' }, AT), { providerId: 'A1', state: 'enroute', final: false, at: AT })
    assert.deepEqual(receiptOf({ text: 'id:A1 stat:UNKNOWN' }, AT), { providerId: 'A1', state: 'unknown', final: true, at: AT })
  })

  it('prefer receipted_message_id and message_state to the text', () => {
    // A common variant: the text gives the id in decimal, the TLV as submit_sm_resp gave it.
    const receipt = receiptOf({ text: 'id:1234567 stat:DELIVRD err:000', receiptedMessageId: '12D687', messageState: 5 }, AT)
    assert.deepEqual(receipt, { providerId: '12D687', state: 'undeliverable', final: true, at: AT })
    assert.deepEqual(receiptOf({ receiptedMessageId: 'abc', messageState: 2 }, AT), { providerId: 'abc', state: 'delivered', final: true, at: AT })
    const networkError = Buffer.from([3, 0x00, 0x22])
    assert.equal(receiptOf({ receiptedMessageId: 'abc', messageState: 5, networkErrorCode: networkError }, AT)?.error, 'network error 3/34')
  })

  it('is none without an id or a known state', () => {
    assert.equal(receiptOf({ text: 'hello' }, AT), undefined)
    assert.equal(receiptOf({ receiptedMessageId: 'abc' }, AT), undefined)
    assert.equal(receiptOf({ text: 'id:1 stat:WHATEVER' }, AT), undefined)
    assert.equal(receiptOf({ messageState: 2 }, AT), undefined)
  })
})
