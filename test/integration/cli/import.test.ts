// `tidings import` and `tidings contacts activate` run as real processes against the database of a test
// server, whose API then shows what they stored.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'csv-parse/sync'
import { DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import type { TestAccount } from '../../helpers/factories.js'
import { addToBlacklist } from '../../../src/services/audience/blacklist.js'
import { CLI } from '../../helpers/cli.js'

const run = promisify(execFile)

interface Summary {
  added: number
  updated: number
  invalid: number
  blacklisted: number
  rows: number
  seconds: number
  rejects_file: string | null
}

interface Listed {
  email: string
  status: number
  phone: number | null
  variables: Record<string, string | number>
}

// Line 1 header (with a BOM, CRLF line ends as spreadsheets write them); a field on lines 3–4 holds a line break.
const PEOPLE = [
  '\uFEFFEmail,name,age,Phone,signup,',
  'ann@example.com,"Ann, ""the"" first",31,+380501234567,2024-01-05,',
  'bob@Example.COM,"Bob',
  'Second line",40,,,',
  'not-an-email,Nobody,50,,,',
  'олена@example.com,Олена Zoë,28,,2023-12-31,',
  'carl@example.com,Carl,33,,2024-02-30,',
  '',
  'dan@example.com,Dan,35,12,,',
  'black@example.com,Black,60,,,',
  'ann@example.com,,32,,,',
  'eve@example.com,Eve,41,,,,surplus',
  ',,,,,',
].join('\r\n')

for (const dialect of DIALECTS) {
  describe(`tidings import on ${dialect}`, () => {
    let t: TestApp
    let owner: TestAccount
    let other: TestAccount
    let bookId: number
    let dir: string
    let env: NodeJS.ProcessEnv

    const tidings = async (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => run(process.execPath, [...CLI, ...args], { env: { ...env, ...extraEnv } })
    const importFile = async (file: string, list = bookId, extra: string[] = []) => {
      const { stdout, stderr } = await tidings(['import', '--account', String(owner.id), '--list', String(list), ...extra, file])
      assert.equal(stderr, '', 'nothing but the summary when stderr is not a terminal')
      return JSON.parse(stdout) as Summary
    }
    const createList = async (account: TestAccount, name: string) =>
      (await t.call(account, { method: 'POST', url: '/addressbooks', payload: { bookName: name } })).json<{ id: number }>().id
    const listed = async (list: number) => {
      const out: Listed[] = []
      for (let offset = 0; ; offset += 100) {
        const page = (await t.call(owner, { method: 'GET', url: `/addressbooks/${list}/emails?limit=100&offset=${offset}` })).json<Listed[]>()
        out.push(...page)
        if (page.length < 100) return out
      }
    }
    const csvFile = (name: string, text: string) => {
      const path = join(dir, name)
      writeFileSync(path, text)
      return path
    }

    before(async () => {
      t = await startTestApp(dialect)
      owner = await t.account('owner')
      other = await t.account('other')
      bookId = await createList(owner, 'people')
      dir = mkdtempSync(join(tmpdir(), 'tidings-import-'))
      env = { ...process.env, DATABASE_URL: t.database.url, LOG_LEVEL: 'info' }
      await addToBlacklist(t.deps, owner.id, ['black@example.com'])
    })
    after(async () => {
      await t.close()
      rmSync(dir, { recursive: true, force: true })
    })

    it('imports quoted fields, UTF-8, typed variables and phones, and writes each rejected row with its line and reason', async () => {
      const file = csvFile('people.csv', PEOPLE)
      const summary = await importFile(file)
      const rejectsFile = join(dir, 'people.rejects.csv')
      assert.ok(summary.seconds >= 0)
      assert.deepEqual({ ...summary, seconds: 0 }, {
        added: 3, // ann, bob, олена
        updated: 1, // ann's second row
        invalid: 4, // not-an-email, carl's date, dan's phone, eve's surplus field
        blacklisted: 1,
        rows: 9, // the blank line and the ",,,,," line are not rows
        seconds: 0,
        rejects_file: rejectsFile,
      })

      const rejects = parse(readFileSync(rejectsFile), { relax_column_count: true }) as string[][]
      assert.deepEqual(rejects[0], ['line', 'reason', 'Email', 'name', 'age', 'Phone', 'signup', ''])
      assert.deepEqual(rejects.slice(1).map((r) => [r[0], r[2]]), [
        ['5', 'not-an-email'],
        ['7', 'carl@example.com'],
        ['9', 'dan@example.com'],
        ['10', 'black@example.com'],
        ['12', 'eve@example.com'],
      ])
      const reasons = rejects.slice(1).map((r) => r[1])
      assert.match(reasons[0]!, /"not-an-email" is not a valid email address/)
      assert.match(reasons[1]!, /signup.*date/)
      assert.match(reasons[2]!, /Phone "12"/)
      assert.match(reasons[3]!, /blacklist/)
      assert.match(reasons[4]!, /7 fields where the header has 6/)
      assert.deepEqual(rejects[5]!.slice(2), ['eve@example.com', 'Eve', '41', '', '', '', 'surplus'], 'the row as it was')

      const contacts = await listed(bookId)
      assert.deepEqual(contacts.map((c) => [c.email, c.status, c.phone, c.variables]), [
        ['ann@example.com', 1, 380501234567, { name: 'Ann, "the" first', age: 32, signup: '2024-01-05' }],
        ['bob@example.com', 1, null, { name: 'Bob\r\nSecond line', age: 40 }],
        ['олена@example.com', 1, null, { name: 'Олена Zoë', age: 28, signup: '2023-12-31' }],
      ])
      const variables = (await t.call(owner, { method: 'GET', url: `/addressbooks/${bookId}/variables` })).json<{ name: string; type: string }[]>()
      assert.deepEqual(variables.map((v) => `${v.name}:${v.type}`).sort(), ['age:number', 'email:string', 'name:string', 'signup:date'])
    })

    it('adds nothing when the same file is imported again: every stored row is an update', async () => {
      const before = await listed(bookId)
      const summary = await importFile(join(dir, 'people.csv'))
      assert.deepEqual({ ...summary, seconds: 0 }, { added: 0, updated: 4, invalid: 4, blacklisted: 1, rows: 9, seconds: 0, rejects_file: join(dir, 'people.rejects.csv') })
      assert.deepEqual(await listed(bookId), before)
    })

    it('imports in batches: a batch of only bad rows is counted as rejects and the import goes on; --rejects names the file', async () => {
      const list = await createList(owner, 'batches')
      const lines = ['email,score']
      for (let i = 0; i < 5000; i++) lines.push(`first${i}@example.com,${i}`)
      for (let i = 0; i < 5000; i++) lines.push(`broken${i}-at-example.com,${i}`)
      for (let i = 0; i < 500; i++) lines.push(`last${i}@example.com,${i % 7 === 0 ? 'n/a' : i}`)
      const rejectsFile = join(dir, 'elsewhere.csv')
      const summary = await importFile(csvFile('batches.csv', lines.join('\n')), list, ['--rejects', rejectsFile])
      assert.deepEqual({ ...summary, seconds: 0 }, { added: 5428, updated: 0, invalid: 5072, blacklisted: 0, rows: 10500, seconds: 0, rejects_file: rejectsFile })
      const rejects = parse(readFileSync(rejectsFile)) as string[][]
      assert.equal(rejects.length, 1 + 5072)
      assert.deepEqual(rejects[1], ['5002', '"broken0-at-example.com" is not a valid email address', 'broken0-at-example.com', '0'])
      assert.match(rejects.at(-1)![1]!, /Variable "score" is of type number/, 'the type the first batch gave the column holds')
      assert.equal((await listed(list)).length, 5428)
    })

    it('stores a batch repeating the previous batch in reverse order once, though two batches are in flight', async () => {
      // On PostgreSQL the two batches lock the same rows in opposite orders: one is a deadlock victim and runs again.
      const list = await createList(owner, 'crossing')
      const lines = ['email']
      for (let i = 0; i < 5000; i++) lines.push(`filler${i}@example.com`)
      for (let i = 0; i < 5000; i++) lines.push(`cross${i}@example.com`)
      for (let i = 4999; i >= 0; i--) lines.push(`cross${i}@example.com`)
      const summary = await importFile(csvFile('crossing.csv', lines.join('\n')), list)
      assert.deepEqual({ ...summary, seconds: 0 }, { added: 10000, updated: 5000, invalid: 0, blacklisted: 0, rows: 15000, seconds: 0, rejects_file: null })
      assert.equal((await listed(list)).length, 10000)
    })

    it('stops at broken CSV with the line, after storing the rows before it', async () => {
      const list = await createList(owner, 'broken')
      const file = csvFile('broken.csv', 'email,name\nfine@example.com,Fine\nlate@example.com,"unclosed\n')
      await assert.rejects(tidings(['import', '--account', String(owner.id), '--list', String(list), file]), (err: { code: number; stderr: string }) => {
        assert.notEqual(err.code, 0)
        assert.match(err.stderr, /not valid CSV after line 2 \(the 1 rows before it were processed\)/)
        return true
      })
      assert.deepEqual((await listed(list)).map((c) => c.email), ['fine@example.com'])
    })

    it('leaves no rejects file when every row is stored', async () => {
      const list = await createList(owner, 'clean')
      const summary = await importFile(csvFile('clean.csv', 'E-Mail,City\nx@example.com,Kyiv\n'), list)
      assert.deepEqual({ ...summary, seconds: 0 }, { added: 1, updated: 0, invalid: 0, blacklisted: 0, rows: 1, seconds: 0, rejects_file: null })
      assert.ok(!existsSync(join(dir, 'clean.rejects.csv')))
    })

    it('refuses a list of another account, an unknown account or list, a missing file, a file without an email column and an empty file', async () => {
      const file = join(dir, 'people.csv')
      const otherList = await createList(other, 'theirs')
      const refused = async (args: string[], message: RegExp) => {
        await assert.rejects(tidings(args), (err: { code: number; stderr: string; stdout: string }) => {
          assert.notEqual(err.code, 0)
          assert.match(err.stderr, message)
          assert.equal(err.stdout, '')
          return true
        })
      }
      await refused(['import', '--account', String(owner.id), '--list', String(otherList), file], new RegExp(`list ${otherList} not found in account ${owner.id}`))
      await refused(['import', '--account', '999999', '--list', String(bookId), file], /account 999999 not found/)
      await refused(['import', '--account', String(owner.id), '--list', '999999', file], new RegExp(`list 999999 not found in account ${owner.id}`))
      await refused(['import', '--account', String(owner.id), '--list', String(bookId), join(dir, 'absent.csv')], /absent\.csv: no such file/)
      await refused(['import', '--account', String(owner.id), '--list', String(bookId), csvFile('no-email.csv', 'mail,name\na@example.com,A\n')], /no email column/)
      await refused(['import', '--account', String(owner.id), '--list', String(bookId), csvFile('empty.csv', '\n\n')], /the file is empty/)
      const theirs = (await t.call(other, { method: 'GET', url: `/addressbooks/${otherList}/emails` })).json<unknown[]>()
      assert.deepEqual(theirs, [], 'nothing reached the other account')
    })

    it('adds New contacts under manual activation, and `contacts activate` makes them and their numbers Active by address, then by list', async () => {
      const list = await createList(owner, 'manual')
      const file = csvFile('manual.csv', 'email,Phone\none@example.com,\ntwo@example.com,380631234567\nthree@example.com,\n')
      const { stdout } = await tidings(['import', '--account', String(owner.id), '--list', String(list), file], { TIDINGS_CONTACT_ACTIVATION: 'manual' })
      assert.equal((JSON.parse(stdout) as Summary).added, 3)
      const statuses = async () => Object.fromEntries((await listed(list)).map((c) => [c.email, c.status]))
      assert.deepEqual(await statuses(), { 'one@example.com': 0, 'two@example.com': 0, 'three@example.com': 0 })

      const activate = async (...args: string[]) => JSON.parse((await tidings(['contacts', 'activate', '--account', String(owner.id), ...args])).stdout) as unknown
      assert.deepEqual(await activate('--list', String(list), 'Two@EXAMPLE.com'), { activated: 0, activated_numbers: 0 }, 'the local part is kept as given')
      assert.deepEqual(await activate('--list', String(list), 'two@EXAMPLE.com'), { activated: 1, activated_numbers: 1 })
      assert.deepEqual(await statuses(), { 'one@example.com': 0, 'two@example.com': 1, 'three@example.com': 0 })
      await assert.rejects(tidings(['contacts', 'activate', '--account', String(other.id), '--list', String(list)]), /list \d+ not found in account/)
      assert.deepEqual(await activate('--list', String(list)), { activated: 2, activated_numbers: 0 })
      assert.deepEqual(await statuses(), { 'one@example.com': 1, 'two@example.com': 1, 'three@example.com': 1 })
    })
  })
}
