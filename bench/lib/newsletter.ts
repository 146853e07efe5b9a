// The campaign of bench:send and bench:scale: a responsive HTML newsletter of about 5 KB with 10 links, `{{name}}`
// 6 times and `{{city}}` 8 times, its subject `Hello {{name}}`, and the generated contacts it goes to.
import { benchContact } from './contacts.js'

export const SENDER = { email: 'news@sender.example.com', name: 'Tidings Bench' }
export const SUBJECT = 'Hello {{name}}'

const CITIES = ['Kyiv', 'Lviv', 'Odesa', 'Kharkiv', 'Dnipro', 'Warsaw', 'Berlin', 'Lisbon', 'Tallinn', 'Vilnius', 'Prague', 'Vienna']

export function sendContact(i: number): { email: string; variables: { name: string; city: string } } {
  const c = benchContact(i, 's')
  return { email: c.email, variables: { name: c.variables.name, city: CITIES[i % CITIES.length]! } }
}

/** A responsive newsletter of about 5 KB: tables, inline styles, 10 links, `{{name}}` 6 times and `{{city}}` 8 times. */
export function campaignHtml(): string {
  const link = (path: string, text: string) =>
    `<a href="https://shop.example.com/${path}" style="color:#1a73e8;font-weight:bold">${text}</a>`
  const article = (n: number, title: string, path: string) => `
        <tr>
          <td class="stack" style="padding:16px 24px;border-top:1px solid #e6e8eb">
            <h2 style="margin:0 0 8px;font:bold 18px/24px Helvetica,Arial,sans-serif;color:#1f2328">${n}. ${title}</h2>
            <p style="margin:0 0 12px;font:15px/22px Helvetica,Arial,sans-serif;color:#424a53">
              Shoppers in {{city}} liked this one most last week: picked for you, {{name}}, with free delivery.</p>
            <p style="margin:0">${link(path, 'Read more')}</p>
          </td>
        </tr>`
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Our news for {{city}}</title>
  <style>
    @media only screen and (max-width: 620px) {
      .container { width: 100% !important; }
      .stack { display: block !important; width: 100% !important; box-sizing: border-box; }
      .hide-mobile { display: none !important; }
    }
  </style>
</head>
<body style="margin:0;padding:0;background:#f3f4f6">
  <table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background:#f3f4f6">
    <tr>
      <td align="center" style="padding:24px 8px">
        <table role="presentation" class="container" width="600" cellpadding="0" cellspacing="0" border="0" style="width:600px;background:#ffffff;border-radius:8px">
        <tr>
          <td style="padding:24px;background:#1a73e8;border-radius:8px 8px 0 0">
            <h1 style="margin:0;font:bold 26px/32px Helvetica,Arial,sans-serif;color:#ffffff">Hello {{name}}!</h1>
            <p style="margin:8px 0 0;font:15px Helvetica,Arial,sans-serif;color:#dbe7fb">This week's picks for {{city}} · <a href="https://shop.example.com/online" style="color:#ffffff">View online</a></p>
          </td>
        </tr>${article(1, 'The spring collection is here', 'spring')}${article(2, 'Bestsellers near you', 'bestsellers')}${article(3, 'Weekend offers', 'offers')}${article(4, 'Gift ideas', 'gifts')}
        <tr>
          <td style="padding:16px 24px;border-top:1px solid #e6e8eb;font:15px/22px Helvetica,Arial,sans-serif;color:#424a53">
            <table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0">
              <tr>
                <td class="stack" width="50%" style="padding:4px 0">${link('stores', 'Find a store in {{city}}')}</td>
                <td class="stack" width="50%" style="padding:4px 0">${link('account', 'Your account')}</td>
              </tr>
              <tr>
                <td class="stack" width="50%" style="padding:4px 0">${link('help', 'Help and returns')}</td>
                <td class="stack hide-mobile" width="50%" style="padding:4px 0">${link('app', 'Get the app')}</td>
              </tr>
            </table>
          </td>
        </tr>
        <tr>
          <td style="padding:16px 24px;background:#f6f8fa;border-radius:0 0 8px 8px;font:12px/18px Helvetica,Arial,sans-serif;color:#6e7781">
            You receive this email, {{name}}, because you subscribed to the Example Shop newsletter.
            Example Shop, 1 Market Square, {{city}}. ${link('preferences', 'Email preferences')}
          </td>
        </tr>
        </table>
      </td>
    </tr>
  </table>
</body>
</html>
`
}
