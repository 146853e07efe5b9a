// The Tidings release this process runs, from package.json (src/lib/ and dist/lib/ are both two levels below it).
import { readFileSync } from 'node:fs'

export const RELEASE = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version
