import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { parseBounceReport, type BounceReport, type DsnReport } from '../../../src/delivery/email/bounce-report.js'

/** A raw message written with \n, sent with CRLF as on the wire. */
const eml = (strings: TemplateStringsArray, ...values: unknown[]) => String.raw(strings, ...values).replace(/\r?\n/g, '\r\n')

const POSTFIX_DSN = eml`Return-Path: <>
Received: by mx.example.org (Postfix) id 4Tq1Xk0Z3vz9sWx; Tue, 14 May 2024 10:12:03 +0000 (UTC)
Date: Tue, 14 May 2024 10:12:03 +0000 (UTC)
From: MAILER-DAEMON@mx.example.org (Mail Delivery System)
Subject: Undelivered Mail Returned to Sender
To: bounces+m1042@news.example.com
Auto-Submitted: auto-replied
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status;
	boundary="4Tq1Xk0Z3vz9sWx.1715681523/mx.example.org"
Content-Transfer-Encoding: 7bit
Message-Id: <20240514101203.4Tq1Xk0Z3vz9sWx@mx.example.org>

This is a MIME-encapsulated message.

--4Tq1Xk0Z3vz9sWx.1715681523/mx.example.org
Content-Description: Notification
Content-Type: text/plain; charset=us-ascii

This is the mail system at host mx.example.org.

I'm sorry to have to inform you that your message could not
be delivered to one or more recipients. It's attached below.

<ghost@example.org>: host mail.example.org[192.0.2.10] said: 550 5.1.1
    <ghost@example.org>: Recipient address rejected: User unknown in local
    recipient table (in reply to RCPT TO command)

<full@example.org>: host mail.example.org[192.0.2.10] said: 552 5.2.2
    <full@example.org>: Recipient address rejected: Mailbox full (in reply to
    RCPT TO command)

<someone@nowhere.example>: Host or domain name not found. Name service error
    for name=nowhere.example type=A: Host not found

--4Tq1Xk0Z3vz9sWx.1715681523/mx.example.org
Content-Description: Delivery report
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.org
X-Postfix-Queue-ID: 4Tq1Xk0Z3vz9sWx
X-Postfix-Sender: rfc822; bounces+m1042@news.example.com
Arrival-Date: Tue, 14 May 2024 10:12:01 +0000 (UTC)

Final-Recipient: rfc822; ghost@example.org
Original-Recipient: rfc822;ghost@example.org
Action: failed
Status: 5.1.1
Remote-MTA: dns; mail.example.org
Diagnostic-Code: smtp; 550 5.1.1 <ghost@example.org>: Recipient address
    rejected: User unknown in local recipient table

Final-Recipient: rfc822; full@example.org
Original-Recipient: rfc822;full@example.org
Action: failed
Status: 5.2.2
Remote-MTA: dns; mail.example.org
Diagnostic-Code: smtp; 552 5.2.2 <full@example.org>: Recipient address
    rejected: Mailbox full

Final-Recipient: rfc822; someone@nowhere.example
Original-Recipient: rfc822;someone@nowhere.example
Action: failed
Status: 5.4.4
Diagnostic-Code: X-Postfix; Host or domain name not found. Name service error
    for name=nowhere.example type=A: Host not found

--4Tq1Xk0Z3vz9sWx.1715681523/mx.example.org
Content-Description: Undelivered Message Headers
Content-Type: text/rfc822-headers

Return-Path: <bounces+m1042@news.example.com>
Received: from news.example.com (news.example.com [192.0.2.5])
	by mx.example.org (Postfix) with ESMTPS id 4Tq1Xk0Z3vz9sWx
	for <ghost@example.org>; Tue, 14 May 2024 10:12:01 +0000 (UTC)
Message-ID: <m1042.c7@news.example.com>
X-Tidings-Message: 1042
From: News <news@news.example.com>
To: ghost@example.org
Subject: May news

--4Tq1Xk0Z3vz9sWx.1715681523/mx.example.org--
`

// Exim's Status is only 5.0.0; Gmail's own answers, folded, say 5.1.1 and 5.2.1.
const EXIM_DSN = eml`Return-path: <>
Envelope-to: bounces+m2077@news.example.com
Received: from Debian-exim by relay.example.net with local (Exim 4.96)
	id 1s6xYz-000Abc-3F
	for bounces+m2077@news.example.com; Tue, 14 May 2024 10:13:20 +0000
X-Failed-Recipients: nobody.here@gmail.com,
  old.account@gmail.com
Auto-Submitted: auto-replied
From: Mail Delivery System <Mailer-Daemon@relay.example.net>
To: bounces+m2077@news.example.com
Content-Type: multipart/report; report-type=delivery-status; boundary=1715681600-eximdsn-1804289383
MIME-Version: 1.0
Subject: Mail delivery failed: returning message to sender
Message-Id: <E1s6xYz-000Abc-3F@relay.example.net>
Date: Tue, 14 May 2024 10:13:20 +0000

--1715681600-eximdsn-1804289383
Content-type: text/plain; charset=us-ascii

This message was created automatically by mail delivery software.

A message that you sent could not be delivered to one or more of its
recipients. This is a permanent error. The following address(es) failed:

  nobody.here@gmail.com
    host gmail-smtp-in.l.google.com [142.250.102.27]
    SMTP error from remote mail server after RCPT TO:<nobody.here@gmail.com>:
    550-5.1.1 The email account that you tried to reach does not exist. Please try

  old.account@gmail.com
    host gmail-smtp-in.l.google.com [142.250.102.27]
    SMTP error from remote mail server after RCPT TO:<old.account@gmail.com>:
    550-5.2.1 The email account that you tried to reach is disabled. Learn more at

--1715681600-eximdsn-1804289383
Content-type: message/delivery-status

Reporting-MTA: dns; relay.example.net

Action: failed
Final-Recipient: rfc822;nobody.here@gmail.com
Status: 5.0.0
Remote-MTA: dns; gmail-smtp-in.l.google.com
Diagnostic-Code: smtp; 550-5.1.1 The email account that you tried to reach does not exist. Please try
 550-5.1.1 double-checking the recipient's email address for typos or
 550-5.1.1 unnecessary spaces. For more information, go to
 550 5.1.1  https://support.google.com/mail/?p=NoSuchUser a1-20020a05600c000100b0041a1b2c3d4si1234567wmq.12 - gsmtp

Action: failed
Final-Recipient: rfc822;old.account@gmail.com
Status: 5.0.0
Remote-MTA: dns; gmail-smtp-in.l.google.com
Diagnostic-Code: smtp; 550-5.2.1 The email account that you tried to reach is disabled. Learn more at
 550 5.2.1  https://support.google.com/mail/?p=DisabledUser a1-20020a05600c000100b0041a1b2c3d4si1234568wmq.13 - gsmtp

--1715681600-eximdsn-1804289383
Content-type: message/rfc822

Return-path: <bounces+m2077@news.example.com>
DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=news.example.com; s=t1;
	h=from:to:subject:message-id; bh=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=;
	b=dGVzdA==
Message-ID: <m2077.c7@news.example.com>
X-Tidings-Message: 2077
From: News <news@news.example.com>
To: nobody.here@gmail.com
Subject: May news
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8

Hello!

In-Body: not a header

--1715681600-eximdsn-1804289383--
`

/** A Postfix notice with the given per-recipient groups and the headers of message `id`. */
const postfixNotice = (subject: string, id: number, ...groups: string[]) => eml`From: MAILER-DAEMON@mx.example.org (Mail Delivery System)
Subject: ${subject}
To: bounces+m${id}@news.example.com
Auto-Submitted: auto-replied
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="B.${id}"

--B.${id}
Content-Description: Notification
Content-Type: text/plain; charset=us-ascii

This is the mail system at host mx.example.org.

--B.${id}
Content-Description: Delivery report
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.org
Arrival-Date: Tue, 14 May 2024 10:12:01 +0000 (UTC)

${groups.join('\n\n')}

--B.${id}
Content-Description: Undelivered Message Headers
Content-Type: text/rfc822-headers

Message-ID: <m${id}.c7@news.example.com>
X-Tidings-Message: ${id}

--B.${id}--
`

// Yahoo's feedback loop; the original is marked inline, which mailparser would parse into the body.
const YAHOO_ARF = eml`From: Yahoo! Mail AntiSpam Feedback <feedback@arf.mail.yahoo.com>
To: fbl@news.example.com
Subject: FW: May news
Date: Tue, 14 May 2024 11:02:41 +0000
Message-ID: <20240514110241.7f3a@arf.mail.yahoo.com>
MIME-Version: 1.0
Content-Type: multipart/report; report-type=feedback-report;
	boundary="----=_Part_81230_1995434843.1715684561"

------=_Part_81230_1995434843.1715684561
Content-Type: text/plain; charset=us-ascii
Content-Transfer-Encoding: 7bit

This is an email abuse report for an email message received from IP 192.0.2.5 on Tue, 14 May 2024 10:30:00 +0000.
For more information about this format please see http://tools.ietf.org/html/rfc5965.

------=_Part_81230_1995434843.1715684561
Content-Type: message/feedback-report

Feedback-Type: abuse
User-Agent: Yahoo!-Mail-Feedback/2.0
Version: 1
Original-Mail-From: <bounces+m3001@news.example.com>
Original-Rcpt-To: reader@yahoo.com
Arrival-Date: Tue, 14 May 2024 10:30:00 +0000
Authentication-Results: mta1234.mail.bf1.yahoo.com
 from=news.example.com; domainkeys=neutral (no sig);
 from=news.example.com; dkim=pass (ok)
Reported-Domain: news.example.com
Source-IP: 192.0.2.5

------=_Part_81230_1995434843.1715684561
Content-Type: message/rfc822
Content-Disposition: inline

Message-ID: <m3001.c7@news.example.com>
X-Tidings-Message: 3001
From: News <news@news.example.com>
To: reader@yahoo.com
Subject: May news

Hello!
------=_Part_81230_1995434843.1715684561--
`

// AOL redacts the complaining recipient: only our own header is left to tell who it was.
const AOL_ARF = eml`From: scomp@aol.net
To: fbl@news.example.com
Subject: Email Feedback Report for IP 192.0.2.5
MIME-Version: 1.0
Content-Type: multipart/report; report-type=feedback-report; boundary="boundary-1138-14591-2-5787"

--boundary-1138-14591-2-5787
Content-Type: text/plain; charset="US-ASCII"

This is an email abuse report for an email message received from IP 192.0.2.5.

--boundary-1138-14591-2-5787
Content-Type: message/feedback-report

Feedback-Type: abuse
User-Agent: AOL SComp
Version: 0.1
Received-Date: Tue, 14 May 2024 11:10:00 -0400
Source-IP: 192.0.2.5
Reported-Domain: news.example.com

--boundary-1138-14591-2-5787
Content-Type: message/rfc822
Content-Disposition: attachment

Message-ID: <m3002.c7@news.example.com>
X-Tidings-Message: 3002
From: News <news@news.example.com>
To: redacted@aol.com
Subject: May news

Hello!
--boundary-1138-14591-2-5787--
`

const dsn = (report: BounceReport | undefined): DsnReport => {
  assert.equal(report?.kind, 'dsn')
  return report as DsnReport
}

describe('bounce reports', () => {
  it('reads every recipient of a Postfix bounce, and our headers from the returned header part', async () => {
    const report = dsn(await parseBounceReport(POSTFIX_DSN))
    assert.deepEqual(report.recipients, [
      {
        recipient: 'ghost@example.org',
        action: 'failed',
        status: '5.1.1',
        diagnostic: '550 5.1.1 <ghost@example.org>: Recipient address rejected: User unknown in local recipient table',
        statisticCode: 6,
        hard: true,
      },
      {
        recipient: 'full@example.org',
        action: 'failed',
        status: '5.2.2',
        diagnostic: '552 5.2.2 <full@example.org>: Recipient address rejected: Mailbox full',
        statisticCode: 10,
        hard: false,
      },
      {
        recipient: 'someone@nowhere.example',
        action: 'failed',
        status: '5.4.4',
        diagnostic: 'Host or domain name not found. Name service error for name=nowhere.example type=A: Host not found',
        statisticCode: 14,
        hard: true,
      },
    ])
    assert.equal(report.returnedMessageId, '<m1042.c7@news.example.com>')
    assert.equal(report.returnedHeaders?.['x-tidings-message'], '1042')
    assert.equal(report.returnedHeaders?.['received'], 'from news.example.com (news.example.com [192.0.2.5]) by mx.example.org (Postfix) with ESMTPS id 4Tq1Xk0Z3vz9sWx for <ghost@example.org>; Tue, 14 May 2024 10:12:01 +0000 (UTC)')
  })

  it("takes the remote server's own code over Exim's generic 5.0.0, and reads only the header section of the returned message", async () => {
    const report = dsn(await parseBounceReport(Buffer.from(EXIM_DSN)))
    assert.equal(report.recipients.length, 2)
    const [recipient, disabled] = report.recipients
    assert.equal(recipient?.recipient, 'nobody.here@gmail.com')
    assert.equal(recipient?.status, '5.0.0')
    assert.equal(recipient?.statisticCode, 6)
    assert.equal(recipient?.hard, true)
    assert.match(recipient?.diagnostic ?? '', /^550-5\.1\.1 The email account that you tried to reach does not exist\. Please try 550-5\.1\.1 double-checking /)
    assert.match(recipient?.diagnostic ?? '', / - gsmtp$/)
    // Only the 5.2.1 says it: the wording alone is no reason to drop a contact.
    assert.deepEqual([disabled?.recipient, disabled?.status, disabled?.statisticCode, disabled?.hard], ['old.account@gmail.com', '5.0.0', 6, true])
    assert.equal(report.returnedMessageId, '<m2077.c7@news.example.com>')
    assert.equal(report.returnedHeaders?.['x-tidings-message'], '2077')
    assert.equal(report.returnedHeaders?.['content-type'], 'text/plain; charset=utf-8')
    assert.equal(report.returnedHeaders?.['in-body'], undefined)
    assert.match(report.returnedHeaders?.['dkim-signature'] ?? '', /s=t1; h=from:to:subject:message-id; bh=/)
  })

  it('counts a delay as temporarily unavailable, and a give-up on a temporary answer as no proof against the address', async () => {
    const delayed = dsn(
      await parseBounceReport(
        postfixNotice(
          'Delayed Mail (still being retried)',
          4001,
          'Final-Recipient: rfc822; slow@example.net\nAction: delayed\nStatus: 4.4.1\nDiagnostic-Code: X-Postfix; connect to mx.example.net[198.51.100.7]:25: Connection\n    timed out\nWill-Retry-Until: Sun, 19 May 2024 10:12:01 +0000 (UTC)',
          'Final-Recipient: rfc822; packed@example.net\nAction: delayed\nStatus: 4.2.2\nDiagnostic-Code: smtp; 452 4.2.2 <packed@example.net>: Mailbox full',
        ),
      ),
    )
    assert.deepEqual(
      delayed.recipients.map((r) => [r.recipient, r.action, r.status, r.statisticCode, r.hard]),
      [
        ['slow@example.net', 'delayed', '4.4.1', 7, false],
        ['packed@example.net', 'delayed', '4.2.2', 7, false],
      ],
    )
    assert.equal(delayed.recipients[0]?.diagnostic, 'connect to mx.example.net[198.51.100.7]:25: Connection timed out')
    assert.equal(delayed.returnedHeaders?.['x-tidings-message'], '4001')

    // After the queue lifetime Postfix fails the message with the last (temporary) status.
    const expired = dsn(
      await parseBounceReport(
        postfixNotice(
          'Undelivered Mail Returned to Sender',
          4002,
          'Final-Recipient: rfc822; slow@example.net\nAction: failed\nStatus: 4.4.1\nDiagnostic-Code: X-Postfix; connect to mx.example.net[198.51.100.7]:25: Connection timed out',
          'Final-Recipient: rfc822; packed@example.net\nAction: failed\nStatus: 4.2.2\nDiagnostic-Code: smtp; 452 4.2.2 <packed@example.net>: Mailbox full',
          'Final-Recipient: rfc822; greylisted@example.net\nAction: failed\nStatus: 4.7.1\nDiagnostic-Code: smtp; 450 4.7.1 <greylisted@example.net>: Recipient address rejected: Greylisted',
        ),
      ),
    )
    assert.deepEqual(
      expired.recipients.map((r) => [r.recipient, r.statisticCode, r.hard]),
      [
        ['slow@example.net', 12, false],
        ['packed@example.net', 10, false],
        ['greylisted@example.net', 12, false],
      ],
    )
  })

  it('reports successful delivery notices as delivered or sent, and reads a missing Action from the status class', async () => {
    const report = dsn(
      await parseBounceReport(
        postfixNotice(
          'Successful Mail Delivery Report',
          4003,
          'Final-Recipient: rfc822; <Happy@Example.net>\nAction: delivered\nStatus: 2.0.0\nDiagnostic-Code: smtp; 250 2.0.0 Ok: queued as 4Tq2',
          'Final-Recipient: rfc822; legacy@example.net\nAction: relayed\nStatus: 2.0.0\nDiagnostic-Code: smtp; 250 2.0.0 Ok',
          'Final-Recipient: rfc822; gone@example.net\nStatus: 5.1.1',
          'Original-Envelope-Id: not-a-recipient-group',
        ),
      ),
    )
    assert.deepEqual(
      report.recipients.map((r) => [r.recipient, r.action, r.statisticCode, r.hard]),
      [
        ['Happy@Example.net', 'delivered', 2, false],
        ['legacy@example.net', 'relayed', 1, false],
        ['gone@example.net', 'failed', 6, true],
      ],
    )
    assert.equal(report.originalEnvelopeId, 'not-a-recipient-group')
  })

  it('finds a report that a gateway wrapped in multipart/mixed with a footer', async () => {
    const notice = postfixNotice('Undelivered Mail Returned to Sender', 4004, 'Final-Recipient: rfc822; ghost@example.org\nAction: failed\nStatus: 5.1.1')
    const wrapped = eml`From: MAILER-DAEMON@mx.example.org (Mail Delivery System)
To: bounces+m4004@news.example.com
Subject: Undelivered Mail Returned to Sender
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="footer"

--footer
${notice.slice(notice.indexOf('Content-Type: multipart/report'))}
--footer
Content-Type: text/plain; charset=us-ascii

Scanned by Example Gateway.
--footer--
`
    const report = dsn(await parseBounceReport(wrapped))
    assert.deepEqual(report.recipients.map((r) => [r.recipient, r.statisticCode, r.hard]), [['ghost@example.org', 6, true]])
    assert.equal(report.returnedHeaders?.['x-tidings-message'], '4004')
  })

  it('reads a Yahoo feedback-loop complaint, with the inline original kept whole', async () => {
    assert.deepEqual(await parseBounceReport(YAHOO_ARF), {
      kind: 'arf',
      feedbackType: 'abuse',
      originalRcptTo: 'reader@yahoo.com',
      originalMailFrom: 'bounces+m3001@news.example.com',
      statisticCode: 11,
      returnedMessageId: '<m3001.c7@news.example.com>',
      returnedHeaders: {
        'message-id': '<m3001.c7@news.example.com>',
        'x-tidings-message': '3001',
        from: 'News <news@news.example.com>',
        to: 'reader@yahoo.com',
        subject: 'May news',
      },
    })
  })

  it('reads an AOL complaint with the recipient redacted, leaving our header to identify the message', async () => {
    const report = await parseBounceReport(Buffer.from(AOL_ARF))
    assert.equal(report?.kind, 'arf')
    assert.ok(report?.kind === 'arf')
    assert.equal(report.feedbackType, 'abuse')
    assert.equal(report.originalRcptTo, undefined)
    assert.equal(report.returnedMessageId, '<m3002.c7@news.example.com>')
    assert.equal(report.returnedHeaders?.['x-tidings-message'], '3002')
  })

  it('does not take a DMARC failure report or a "not spam" report for a complaint', async () => {
    for (const type of ['auth-failure', 'not-spam']) {
      const raw = AOL_ARF.replace('Feedback-Type: abuse', `Feedback-Type: ${type}`)
      assert.notEqual(raw, AOL_ARF)
      assert.equal(await parseBounceReport(raw), undefined, type)
    }
  })

  it('finds no report in a human reply, an auto-reply, or a bounce forwarded as an attachment', async () => {
    const reply = eml`From: Reader <reader@example.org>
To: News <news@news.example.com>
Subject: Re: May news
In-Reply-To: <m1042.c7@news.example.com>
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8

Please stop. Your mail to my old address bounced:
Final-Recipient: rfc822; ghost@example.org
Action: failed
Status: 5.1.1
`
    const autoReply = eml`From: Reader <reader@example.org>
To: bounces+m1042@news.example.com
Subject: Out of office: May news
Auto-Submitted: auto-replied
MIME-Version: 1.0
Content-Type: multipart/alternative; boundary="alt"

--alt
Content-Type: text/plain; charset=utf-8

I am away until June.
--alt
Content-Type: text/html; charset=utf-8

<p>I am away until June.</p>
--alt--
`
    const forwarded = eml`From: Postmaster <postmaster@example.org>
To: news@news.example.com
Subject: Fwd: Undelivered Mail Returned to Sender
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="fwd"

--fwd
Content-Type: text/plain; charset=utf-8

See below.
--fwd
Content-Type: message/rfc822

${POSTFIX_DSN}
--fwd--
`
    assert.equal(await parseBounceReport(reply), undefined)
    assert.equal(await parseBounceReport(autoReply), undefined)
    assert.equal(await parseBounceReport(forwarded), undefined)
    // The same DSN unwrapped is a report: the forward alone made the difference.
    assert.equal((await parseBounceReport(POSTFIX_DSN))?.kind, 'dsn')
  })
})
