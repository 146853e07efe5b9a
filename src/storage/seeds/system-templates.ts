// The system templates shipped with Tidings (GET /templates): responsive, table-based layouts with inline
// styles, which is what email clients render reliably (Outlook ignores most CSS; Gmail drops <style> in some
// views). Variables are the contact's (`{{name}}`); `{{unsubscribe_url}}` and `{{permalink}}` are filled
// in by the sender of a campaign.

export interface SystemTemplate {
  slug: string
  name: string
  lang: string
  category: string
  description: string
  html: string
}

const FRAME_START = (title: string, preheader: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="x-apple-disable-message-reformatting"><title>${title}</title>
<style>
  @media (max-width: 620px) { .container { width: 100% !important; } .pad { padding: 20px !important; } .stack { display: block !important; width: 100% !important; } }
</style></head>
<body style="margin:0;padding:0;background:#f2f4f7;">
<div style="display:none;max-height:0;overflow:hidden;opacity:0;">${preheader}</div>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f2f4f7;"><tr><td align="center" style="padding:24px 12px;">
<table role="presentation" class="container" width="600" cellpadding="0" cellspacing="0" style="width:600px;max-width:600px;background:#ffffff;border-radius:8px;overflow:hidden;font-family:Arial,Helvetica,sans-serif;color:#1f2933;">`

const FRAME_END = `<tr><td class="pad" style="padding:24px 40px;background:#f8fafc;font-size:12px;line-height:18px;color:#6b7785;text-align:center;">
You receive this email because you subscribed. <a href="{{unsubscribe_url}}" style="color:#6b7785;">Unsubscribe</a> · <a href="{{permalink}}" style="color:#6b7785;">View in a browser</a>
</td></tr>
</table></td></tr></table></body></html>
`

const BUTTON = (label: string, href: string, color: string) =>
  `<table role="presentation" cellpadding="0" cellspacing="0"><tr><td style="border-radius:6px;background:${color};">
<a href="${href}" style="display:inline-block;padding:14px 28px;font-size:16px;font-weight:bold;color:#ffffff;text-decoration:none;border-radius:6px;">${label}</a>
</td></tr></table>`

export const SYSTEM_TEMPLATES: readonly SystemTemplate[] = [
  {
    slug: 'newsletter',
    name: 'Newsletter',
    lang: 'en',
    category: 'newsletter',
    description: 'A monthly newsletter: a headline story with an image, two short stories side by side, a footer with unsubscribe.',
    html:
      FRAME_START('Our news', 'What happened this month') +
      `<tr><td style="background:#1d4ed8;padding:28px 40px;color:#ffffff;font-size:22px;font-weight:bold;">Company News</td></tr>
<tr><td class="pad" style="padding:32px 40px 8px;">
<h1 style="margin:0 0 12px;font-size:26px;line-height:32px;">Hello {{name}}, here is what is new</h1>
<p style="margin:0 0 20px;font-size:16px;line-height:24px;">The headline story of the month goes here: two or three sentences that make the reader want to know more.</p>
${BUTTON('Read the story', 'https://example.com/story', '#1d4ed8')}
</td></tr>
<tr><td class="pad" style="padding:24px 40px 32px;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr>
<td class="stack" width="50%" valign="top" style="padding-right:12px;"><h2 style="margin:0 0 8px;font-size:18px;">Second story</h2><p style="margin:0;font-size:14px;line-height:21px;">A short summary with a link to <a href="https://example.com/second" style="color:#1d4ed8;">the full article</a>.</p></td>
<td class="stack" width="50%" valign="top" style="padding-left:12px;"><h2 style="margin:0 0 8px;font-size:18px;">Third story</h2><p style="margin:0;font-size:14px;line-height:21px;">Another summary with a link to <a href="https://example.com/third" style="color:#1d4ed8;">the full article</a>.</p></td>
</tr></table>
</td></tr>` +
      FRAME_END,
  },
  {
    slug: 'promotion',
    name: 'Promotion',
    lang: 'en',
    category: 'promo',
    description: 'A sale announcement: a bold offer, a discount code, one call to action.',
    html:
      FRAME_START('A special offer for you', 'Save 20% this week only') +
      `<tr><td style="background:#111827;padding:40px;text-align:center;color:#ffffff;">
<p style="margin:0 0 8px;font-size:14px;letter-spacing:2px;text-transform:uppercase;color:#fbbf24;">This week only</p>
<h1 style="margin:0;font-size:40px;line-height:46px;">20% off everything</h1>
</td></tr>
<tr><td class="pad" style="padding:32px 40px;text-align:center;">
<p style="margin:0 0 20px;font-size:16px;line-height:24px;">{{name}}, thank you for being with us. Use this code at checkout:</p>
<p style="margin:0 0 24px;"><span style="display:inline-block;padding:10px 18px;border:2px dashed #111827;font-size:20px;font-weight:bold;letter-spacing:3px;">SAVE20</span></p>
<table role="presentation" align="center" cellpadding="0" cellspacing="0"><tr><td>${BUTTON('Shop now', 'https://example.com/shop', '#dc2626')}</td></tr></table>
<p style="margin:20px 0 0;font-size:12px;color:#6b7785;">The offer ends on Sunday at midnight.</p>
</td></tr>` +
      FRAME_END,
  },
  {
    slug: 'welcome',
    name: 'Welcome',
    lang: 'en',
    category: 'welcome',
    description: 'A welcome email for new subscribers: a greeting, three things to expect, a first step.',
    html:
      FRAME_START('Welcome', 'Glad you are here') +
      `<tr><td class="pad" style="padding:40px 40px 8px;">
<h1 style="margin:0 0 16px;font-size:28px;line-height:34px;">Welcome, {{name}}!</h1>
<p style="margin:0 0 16px;font-size:16px;line-height:24px;">Thanks for subscribing. Here is what you can expect from us:</p>
<ul style="margin:0 0 24px;padding-left:20px;font-size:16px;line-height:26px;">
<li>one email a month with the news that matters;</li>
<li>early access to new products;</li>
<li>no spam, ever: you can leave with one click.</li>
</ul>
${BUTTON('Get started', 'https://example.com/start', '#059669')}
</td></tr>
<tr><td class="pad" style="padding:24px 40px 32px;font-size:14px;line-height:21px;color:#52606d;">Questions? Just reply to this email: a person reads every answer.</td></tr>` +
      FRAME_END,
  },
]
