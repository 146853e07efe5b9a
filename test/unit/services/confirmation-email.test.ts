import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { CONFIRMATION_LANGS, confirmationEmail } from '../../../src/services/audience/confirmation-email.js'

const LINK = 'https://news.example.com/confirm/NDI.abc_DEF-123'

describe('the default confirmation email', () => {
  it('has a subject, the list and sender names, and the link in the text and in the HTML, in every language', () => {
    for (const lang of CONFIRMATION_LANGS) {
      const email = confirmationEmail({ lang, bookName: 'Weekly', senderName: 'Acme', link: LINK })
      assert.ok(email.subject.includes('Weekly'), `${lang} subject: ${email.subject}`)
      assert.ok(email.text.includes(LINK), `${lang} text`)
      assert.ok(email.text.includes('Weekly') && email.text.includes('Acme'), `${lang} text names`)
      const hrefs = [...email.html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]?.replaceAll('&#x2F;', '/'))
      assert.deepEqual(hrefs, [LINK, LINK], `${lang} html: the button and the plain link`)
    }
  })

  it('is written in the language asked for (Ukrainian for `ua`, marked `uk` in HTML)', () => {
    const words: Record<string, RegExp> = { en: /confirm/i, ru: /подтвердите/i, ua: /підтвердьте/i, tr: /onaylay/i, es: /confirma/i, pt: /confirme/i }
    const texts = new Set<string>()
    for (const lang of CONFIRMATION_LANGS) {
      const email = confirmationEmail({ lang, bookName: 'B', senderName: 'S', link: LINK })
      assert.match(email.text, words[lang]!, lang)
      texts.add(email.text)
    }
    assert.equal(texts.size, CONFIRMATION_LANGS.length, 'every language has its own text')
    assert.match(confirmationEmail({ lang: 'ua', bookName: 'B', senderName: 'S', link: LINK }).html, /<html lang="uk">/)
  })

  it('escapes every inserted value in the HTML, and keeps the subject on one line', () => {
    const email = confirmationEmail({
      lang: 'en',
      bookName: '<script>alert(1)</script>\r\nBcc: x@y.z',
      senderName: 'Tom & "Jerry" <t@j.com>',
      link: 'https://x.example/confirm/a"><img src=x onerror=alert(1)>',
    })
    assert.ok(!email.html.includes('<script>'))
    assert.ok(!email.html.includes('<img'))
    const hrefs = [...email.html.matchAll(/<a href="([^"]*)"/g)].map((m) => m[1])
    assert.deepEqual(hrefs, [`https:&#x2F;&#x2F;x.example&#x2F;confirm&#x2F;a&quot;&gt;&lt;img src=x onerror=alert(1)&gt;`, hrefs[0]], 'the link stays inside href')
    assert.ok(!email.html.includes('<t@j.com>'))
    assert.ok(email.html.includes('&lt;script&gt;') && email.html.includes('Tom &amp; &quot;Jerry&quot;'))
    assert.ok(!/[\r\n]/.test(email.subject), email.subject)
    assert.ok(email.text.includes('Tom & "Jerry" <t@j.com>'), 'the text part is plain text, unescaped')
  })
})
