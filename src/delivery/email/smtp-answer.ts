// What a mail server's refusal means for one recipient: a relay's answer to nodemailer, or the
// Diagnostic-Code of a bounce. It becomes a statistic code (API.md 3.3), whether sending again later may
// succeed, and whether the address itself is bad, so the contact is marked bounced and never mailed again.

/** Per-recipient statistic codes (API.md 3.3) that a delivery outcome maps to. */
export const StatisticCode = {
  sent: 1,
  delivered: 2,
  noSuchEmail: 6,
  temporarilyUnavailable: 7,
  unavailable: 8,
  rejectedAsSpam: 9,
  mailboxFull: 10,
  markedAsSpam: 11,
  deliveryFailure: 12,
  noSuchDomain: 14,
  notValidEmail: 16,
  temporaryBlocked: 17,
} as const

export interface SmtpAnswer {
  /** The basic reply code (550); read from the start of `text` when absent. */
  code?: number
  /** The RFC 3463 enhanced status code (5.1.1); read from `text` when absent. */
  enhanced?: string
  text: string
}

export interface AnswerClass {
  statisticCode: number
  /** A temporary refusal (4xx) or no answer at all: the same message may go through later. */
  retryable: boolean
  /** The address or its domain does not exist or is malformed: the contact should be marked bounced. */
  hard: boolean
}

// Not preceded or followed by more dotted digits, so an IP address (10.5.1.1) is not read as 5.1.1.
const ENHANCED = /(?<![\d.])([245]\.\d{1,3}\.\d{1,3})(?!\.?\d)/
const BASIC = /^\s*([245]\d\d)(?=[ -]|$)/

/** The first RFC 3463 enhanced status code in a server's answer (`550 5.1.1 <x@y>: User unknown` gives 5.1.1). */
export function enhancedCodeOf(text: string): string | undefined {
  return ENHANCED.exec(text)?.[1]
}

type Reason = 'noSuchEmail' | 'noSuchDomain' | 'notValidEmail' | 'mailboxFull' | 'spam' | 'throttled' | 'policy' | 'other'

// By enhanced subject.detail (RFC 3463 section 3). Codes not listed here say too little, the text decides.
const BY_ENHANCED: Record<string, Reason> = {
  '1.1': 'noSuchEmail',
  '1.6': 'noSuchEmail', // mailbox has moved, no forwarding address
  '2.1': 'noSuchEmail', // mailbox disabled (Gmail: an abandoned account)
  '1.2': 'noSuchDomain',
  '1.10': 'noSuchDomain', // null MX (RFC 7505): the domain accepts no mail
  '4.4': 'noSuchDomain',
  '1.3': 'notValidEmail',
  '2.2': 'mailboxFull',
  '4.5': 'throttled', // congestion; also Gmail's daily sending limit
  // Our own envelope sender or the message size: nothing wrong with the recipient.
  '1.7': 'other',
  '1.8': 'other',
  '2.3': 'other',
  '3.4': 'other',
}

// The usual phrasings (Gmail, Outlook, Yahoo, Postfix, Exim, Exchange), tried in this order when the codes
// say too little. Spam first: a block-list refusal that also mentions an address must not bounce a contact.
const TOO_BIG = /message size|size exceeds|too (big|large)/i
const BY_TEXT: ReadonlyArray<[RegExp, Reason]> = [
  [/sender address rejected|sender verify/i, 'other'],
  [TOO_BIG, 'other'],
  [/spam|unsolicited|black ?list|block ?list|blocked|banned|reputation|spamhaus|spamcop|barracuda|\brbl\b|dnsbl/i, 'spam'],
  [/domain not found|host or domain name not found|no such domain|nxdomain|domain does not exist|unknown domain|null mx|domain does not accept mail/i, 'noSuchDomain'],
  [/address syntax|syntax error in (the )?address|malformed (recipient |e-?mail )?address|not a valid rfc[- ]?5321 address|invalid address format/i, 'notValidEmail'],
  [
    /user unknown|unknown user|no such (user|mailbox|recipient|account)|mailbox (unavailable|not found|is disabled|has been disabled)|does not exist|doesn't exist|recipient (unknown|not found)|unknown recipient|invalid recipient|recipnotfound|user not found|account (is |has been )?disabled|doesn't have an? [\w.-]+ account|unknown (local part|mailbox)/i,
    'noSuchEmail',
  ],
  // Before quota: "sending quota exceeded" is about us, not the recipient's mailbox.
  [/greylist|graylist|rate ?-?limit|too many (connections|messages|concurrent|sessions)|throttl|unusual rate|sending (quota|limit)|connection limit/i, 'throttled'],
  [/quota|mailbox (is )?full|inbox (is )?full|out of storage|storage (space|allocation)|mailbox size limit/i, 'mailboxFull'],
]

/** Classifies a refusal: enhanced code first, then the basic code, then the wording. */
export function classifySmtpAnswer(answer: SmtpAnswer): AnswerClass {
  const enhanced = enhancedCodeOf(answer.enhanced ?? '') ?? enhancedCodeOf(answer.text)
  const basic = answer.code ?? basicCodeOf(answer.text)
  const klass = failureClass(enhanced?.[0]) ?? failureClass(basic === undefined ? undefined : String(basic)[0])
  // No SMTP answer at all: a refused or dropped connection, the relay's name not resolving.
  if (klass === undefined) return { statisticCode: StatisticCode.temporarilyUnavailable, retryable: true, hard: false }
  const detail = enhanced?.slice(2)
  const reason = enhancedReason(detail, answer.text) ?? basicReason(basic, answer.text) ?? textReason(answer.text)
  if (klass === 4) return { statisticCode: temporaryCode(reason), retryable: true, hard: false }
  const statisticCode = reason ? permanentCode(reason) : detail && detail !== '0.0' ? StatisticCode.unavailable : StatisticCode.deliveryFailure
  const hard = reason === 'noSuchEmail' || reason === 'noSuchDomain' || reason === 'notValidEmail'
  return { statisticCode, retryable: false, hard }
}

function basicCodeOf(text: string): number | undefined {
  const match = BASIC.exec(text)
  return match ? Number(match[1]) : undefined
}

function failureClass(digit: string | undefined): 4 | 5 | undefined {
  return digit === '4' ? 4 : digit === '5' ? 5 : undefined
}

function enhancedReason(detail: string | undefined, text: string): Reason | undefined {
  if (detail === undefined) return undefined
  // X.7.x is security or policy: a spam verdict only when the text says so (DMARC, relaying, auth are not).
  if (detail.startsWith('7.')) return textReason(text) === 'spam' ? 'spam' : 'policy'
  return BY_ENHANCED[detail]
}

function basicReason(basic: number | undefined, text: string): Reason | undefined {
  if (basic === 421) return 'throttled'
  // 552 is "exceeded storage allocation", unless the message is what is too big.
  if (basic === 552 && !TOO_BIG.test(text)) return 'mailboxFull'
  return undefined
}

function textReason(text: string): Reason | undefined {
  return BY_TEXT.find(([pattern]) => pattern.test(text))?.[1]
}

function temporaryCode(reason: Reason | undefined): number {
  if (reason === 'mailboxFull') return StatisticCode.mailboxFull
  // 4.7.x (greylisting, rate limits, a temporary block) is 'policy' or 'spam'.
  if (reason === 'throttled' || reason === 'spam' || reason === 'policy') return StatisticCode.temporaryBlocked
  return StatisticCode.temporarilyUnavailable
}

function permanentCode(reason: Reason): number {
  switch (reason) {
    case 'noSuchEmail':
      return StatisticCode.noSuchEmail
    case 'noSuchDomain':
      return StatisticCode.noSuchDomain
    case 'notValidEmail':
      return StatisticCode.notValidEmail
    case 'mailboxFull':
      return StatisticCode.mailboxFull
    case 'spam':
      return StatisticCode.rejectedAsSpam
    default:
      return StatisticCode.unavailable
  }
}
