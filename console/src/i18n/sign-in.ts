/** The sign-in screen's words. */
import { defineMessages } from './index.ts';

export const signInText = defineMessages({
  localTitle: 'Local sign-in',
  localOnly: 'Local stack only.',
  localExplained:
    'This server (npm start) has no Supabase Auth, so it signs you in as a demo user without a password. A deployed console signs in with Supabase Auth instead.',
  'as.admin': 'Sign in as the demo admin',
  'as.customer': 'Sign in as the demo customer',
  roles:
    'The admin may change campaigns, the catalogue and products; the customer sees the store’s campaigns and their own orders, and may book stock-in and adjustments.',
  email: 'E-mail',
  password: 'Password',
  signingIn: 'Signing in…',
}, {
  localTitle: '本機登入',
  localOnly: '僅限本機環境。',
  localExplained:
    '這台伺服器（npm start）沒有 Supabase Auth，因此不需密碼，直接以示範使用者登入。部署後的後台改用 Supabase Auth 登入。',
  'as.admin': '以示範管理員登入',
  'as.customer': '以示範顧客登入',
  roles: '管理員可以變更行銷活動、活動類型與商品；顧客可以看到商店的行銷活動與自己的訂單，也可以登記入庫與庫存調整。',
  email: '電子郵件',
  password: '密碼',
  signingIn: '登入中…',
});
