// Bounce and complaint reports as mail servers send them: a DSN (RFC 3464) and an ARF report (RFC 5965).

export function dsn(recipient: string, status: string, diagnostic: string): string {
  return [
    'From: MAILER-DAEMON@mx.example.net',
    'Subject: Undelivered Mail Returned to Sender',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=delivery-status; boundary="B"',
    '',
    '--B',
    'Content-Type: text/plain',
    '',
    'Your message could not be delivered.',
    '--B',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.example.net',
    '',
    `Final-Recipient: rfc822; ${recipient}`,
    'Action: failed',
    `Status: ${status}`,
    `Diagnostic-Code: smtp; ${diagnostic}`,
    '',
    '--B--',
    '',
  ].join('\r\n')
}

export function arf(returnPath: string, recipient: string): string {
  return [
    'From: fbl@isp.example',
    'Subject: Complaint',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=feedback-report; boundary="F"',
    '',
    '--F',
    'Content-Type: text/plain',
    '',
    'A complaint about a message from your network.',
    '--F',
    'Content-Type: message/feedback-report',
    '',
    'Feedback-Type: abuse',
    'User-Agent: isp-fbl/1.0',
    'Version: 1',
    `Original-Mail-From: <${returnPath}>`,
    `Original-Rcpt-To: <${recipient}>`,
    '',
    '--F',
    'Content-Type: text/rfc822-headers',
    '',
    `Return-Path: <${returnPath}>`,
    `To: ${recipient}`,
    'Subject: Hi',
    '',
    '--F--',
    '',
  ].join('\r\n')
}
