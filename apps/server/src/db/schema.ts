import type { ColumnType, Generated } from 'kysely';
import type { AccountStatus, Language, Role } from '@loupe/contracts';

/** Timestamps are epoch milliseconds (bigint columns) so both databases compare them the same way. */
type Millis = number;

export interface UsersTable {
  id: Generated<number>;
  email: string;
  password_hash: string | null;
  first_name: string;
  last_name: string;
  company: string;
  company_id: string;
  /** Digits with an optional leading +, so equal numbers written differently collide. */
  phone: string | null;
  landline: string;
  country: string;
  job_title: string;
  role: Role;
  status: AccountStatus;
  language: Language;
  training_priority: number;
  /** 0 or 1: SQLite has no boolean. */
  download_permission: number;
  oidc_subject: string | null;
  created_at: Millis;
  activated_at: Millis | null;
  updated_at: Millis;
}

export type SessionEndReason = 'logout' | 'replaced' | 'revoked';

export interface SessionsTable {
  id: Generated<number>;
  user_id: number;
  token_hash: string;
  created_at: Millis;
  expires_at: Millis;
  ended_at: Millis | null;
  end_reason: SessionEndReason | null;
}

export type TokenPurpose = 'activate' | 'reset';

export interface OneTimeTokensTable {
  id: Generated<number>;
  user_id: number;
  purpose: TokenPurpose;
  token_hash: string;
  created_at: Millis;
  expires_at: Millis;
  used_at: Millis | null;
}

export interface LoginCodesTable {
  id: Generated<number>;
  email: string;
  code_hash: string;
  created_at: Millis;
  expires_at: Millis;
  attempts: ColumnType<number, number | undefined, number>;
  used_at: Millis | null;
}

export interface OutboxTable {
  id: Generated<number>;
  to_address: string;
  subject: string;
  text: string;
  link: string | null;
  created_at: Millis;
}

export interface OidcStatesTable {
  state: string;
  nonce: string;
  code_verifier: string;
  created_at: Millis;
}

export interface DB {
  users: UsersTable;
  sessions: SessionsTable;
  one_time_tokens: OneTimeTokensTable;
  login_codes: LoginCodesTable;
  outbox: OutboxTable;
  oidc_states: OidcStatesTable;
}
