// The smpp package, loaded by the first SMPP link or status read: a process on the capture channel (or
// serving the API only) never needs it.
import type smpp from 'smpp'
import { lazyRequire } from '../../lib/lazy-require.js'

export const smppPackage = lazyRequire<typeof smpp>('smpp')
