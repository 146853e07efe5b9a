import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { classifySmtpAnswer, enhancedCodeOf, type AnswerClass, type SmtpAnswer } from '../../../src/delivery/email/smtp-answer.js'

const hard = (statisticCode: number): AnswerClass => ({ statisticCode, retryable: false, hard: true })
const permanent = (statisticCode: number): AnswerClass => ({ statisticCode, retryable: false, hard: false })
const temporary = (statisticCode: number): AnswerClass => ({ statisticCode, retryable: true, hard: false })

function check(cases: ReadonlyArray<readonly [SmtpAnswer, AnswerClass]>) {
  for (const [answer, expected] of cases) assert.deepEqual(classifySmtpAnswer(answer), expected, answer.text)
}

// Gmail's multi-line answer as nodemailer's err.response joins it.
const GMAIL_NO_SUCH_USER = [
  "550-5.1.1 The email account that you tried to reach does not exist. Please try",
  "550-5.1.1 double-checking the recipient's email address for typos or",
  '550-5.1.1 unnecessary spaces. For more information, go to',
  '550 5.1.1  https://support.google.com/mail/?p=NoSuchUser 41be03b00d2f7-5e9b3a1c2f1si1234567a12.321 - gsmtp',
].join('\n')

describe('SMTP answers', () => {
  it('finds the enhanced status code, not digits of an IP address or a longer dotted number', () => {
    assert.equal(enhancedCodeOf('550 5.1.1 <x@y.com>: Recipient address rejected: User unknown in local recipient table'), '5.1.1')
    assert.equal(enhancedCodeOf(GMAIL_NO_SUCH_USER), '5.1.1')
    assert.equal(enhancedCodeOf('556 5.1.10 Recipient address has null MX'), '5.1.10')
    assert.equal(enhancedCodeOf('#550 5.1.1 RESOLVER.ADR.RecipNotFound; not found ##'), '5.1.1')
    assert.equal(enhancedCodeOf('554 Service unavailable; Client host [10.5.1.1] blocked'), undefined)
    assert.equal(enhancedCodeOf('mail-filter version 5.1.1234 says no'), undefined)
    assert.equal(enhancedCodeOf('connect ECONNREFUSED 192.0.2.5:25'), undefined)
  })

  it('marks a missing mailbox, a missing domain and a malformed address hard, never retried', () => {
    check([
      [{ code: 550, text: '550 5.1.1 <x@y.com>: Recipient address rejected: User unknown in local recipient table' }, hard(6)],
      [{ code: 550, text: GMAIL_NO_SUCH_USER }, hard(6)],
      [{ code: 550, text: '550 5.2.1 The email account that you tried to reach is disabled. gsmtp' }, hard(6)],
      // The codes say nothing specific: the wording does (Outlook.com, Yahoo, cPanel's Exim, Exchange).
      [{ code: 550, text: '550 5.5.0 Requested action not taken: mailbox unavailable (S2017062302)' }, hard(6)],
      [{ code: 554, text: "554 delivery error: dd This user doesn't have a yahoo.com account (x@yahoo.com) [0] - mta1234.mail.ne1.yahoo.com" }, hard(6)],
      [{ code: 550, text: '550 No Such User Here' }, hard(6)],
      [{ code: 550, text: '550 5.0.0 RESOLVER.ADR.RecipNotFound; not found' }, hard(6)],
      [{ code: 550, text: '550 5.1.2 <x@nowhere.example>: Recipient address rejected: Domain not found' }, hard(14)],
      [{ enhanced: '5.4.4', text: 'Host or domain name not found. Name service error for name=nowhere.example type=A: Host not found' }, hard(14)],
      [{ code: 556, text: '556 5.1.10 <x@example.com>: Recipient address rejected: Domain example.com does not accept mail (nullMX)' }, hard(14)],
      [{ code: 553, text: '553 5.1.3 The recipient address <x@@y.com> is not a valid RFC-5321 address. gsmtp' }, hard(16)],
      [{ code: 501, text: '501 Bad recipient address syntax' }, hard(16)],
    ])
  })

  it('keeps spam verdicts, full mailboxes and policy refusals permanent but not hard', () => {
    check([
      [{ code: 554, text: '554 5.7.1 Service unavailable; Client host [192.0.2.5] blocked using zen.spamhaus.org; https://www.spamhaus.org/query/ip/192.0.2.5' }, permanent(9)],
      [{ code: 550, text: "550 5.7.1 Unfortunately, messages from [192.0.2.5] weren't sent. Please contact your Internet service provider since part of their network is on our block list (S3150)." }, permanent(9)],
      [{ code: 550, text: '550-5.7.1 [192.0.2.5] Gmail has detected that this message is likely unsolicited mail. gsmtp' }, permanent(9)],
      [{ code: 550, text: '550 Message rejected as spam by Content Filtering' }, permanent(9)],
      [{ code: 552, text: "552-5.2.2 The recipient's inbox is out of storage space. gsmtp" }, permanent(10)],
      [{ code: 552, text: '552 Requested mail action aborted: exceeded storage allocation' }, permanent(10)],
      [{ code: 550, text: '550 5.7.26 Unauthenticated email from example.com is not accepted due to domain\'s DMARC policy. gsmtp' }, permanent(8)],
      [{ code: 554, text: '554 5.7.1 <x@y.com>: Relay access denied' }, permanent(8)],
      // 552 for a message too big, not a full mailbox; our own sending limit, not the recipient's quota.
      [{ code: 552, text: '552 5.3.4 Message size exceeds fixed limit' }, permanent(8)],
      [{ code: 552, text: '552 Message size exceeds maximum permitted' }, permanent(8)],
      [{ code: 550, text: '550 5.4.5 Daily user sending quota exceeded. gsmtp' }, permanent(8)],
      // Our envelope sender's domain, not the recipient's: the contact is fine.
      [{ code: 553, text: '553 5.1.8 <bounces@news.example>: Sender address rejected: Domain not found' }, permanent(8)],
      [{ code: 550, text: '550 Sender address rejected: Domain not found' }, permanent(8)],
      [{ code: 554, text: '554 Transaction failed' }, permanent(12)],
      [{ code: 550, text: '550 5.0.0 Message rejected' }, permanent(12)],
    ])
  })

  it('retries every 4xx answer, as a temporary block, a full mailbox or plainly later', () => {
    check([
      [{ code: 450, text: '450 4.2.0 <x@y.com>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/help/y.com.html' }, temporary(17)],
      [{ code: 451, text: '451 4.7.1 Please try again later' }, temporary(17)],
      [{ code: 421, text: '421-4.7.28 [192.0.2.5] Our system has detected an unusual rate of unsolicited mail originating from your IP address. gsmtp' }, temporary(17)],
      [{ code: 421, text: '421 Too many concurrent SMTP connections; please try again later.' }, temporary(17)],
      [{ code: 421, text: '421 mx.example.net Service not available, closing transmission channel' }, temporary(17)],
      [{ code: 452, text: '452 4.2.2 The email account that you tried to reach is over quota. gsmtp' }, temporary(10)],
      [{ code: 451, text: '451 4.3.0 <x@y.com>: Temporary lookup failure' }, temporary(7)],
      // A temporary "user unknown" or "domain not found" proves nothing against the address.
      [{ code: 450, text: '450 4.1.1 <x@y.com>: Recipient address rejected: unverified address: Host or domain name not found' }, temporary(7)],
      [{ code: 450, text: '450 Requested mail action not taken: mailbox unavailable' }, temporary(7)],
    ])
  })

  it('retries when there was no SMTP answer at all, whatever the error says', () => {
    check([
      [{ text: 'connect ECONNREFUSED 192.0.2.5:25' }, temporary(7)],
      [{ text: 'getaddrinfo ENOTFOUND smtp.relay.example' }, temporary(7)],
      [{ text: 'Host or domain name not found' }, temporary(7)],
      [{ text: 'Greeting never received' }, temporary(7)],
    ])
  })

  it('prefers the codes it is given to the ones in the text, and the enhanced code to the basic one', () => {
    check([
      [{ code: 550, enhanced: '5.1.1', text: 'Requested action not taken' }, hard(6)],
      [{ code: 550, enhanced: '5.2.2', text: '550 5.1.1 mailbox gone' }, permanent(10)],
      [{ code: 452, text: 'Requested action not taken: insufficient system storage' }, temporary(7)],
      // The enhanced class decides: a 5xx enhanced code with a 4xx reply is still final.
      [{ code: 450, enhanced: '5.1.1', text: 'User unknown' }, hard(6)],
    ])
  })
})
