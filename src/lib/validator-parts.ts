// The two validator functions Tidings uses, imported one by one: the package's index loads all of its
// 100+ validators (113 files), which every process paid for at start.
import escapeModule from 'validator/lib/escape.js'
import isEmailModule from 'validator/lib/isEmail.js'

// Each file is CommonJS with the function as both module.exports and .default; TypeScript sees the latter only.
export const escapeHtml = escapeModule.default
export const isEmail = isEmailModule.default
