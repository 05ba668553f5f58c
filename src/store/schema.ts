/**
 * Table types shared by both dialects. Times are Unix milliseconds (bigint
 * columns, parsed to numbers), booleans are 0/1 integers and JSON is text, so
 * one code path serves SQLite and PostgreSQL.
 */
export interface AccountsTable {
  id: string;
  name: string;
  multi_tenant: number;
  email_verified: number;
  created_at: number;
}

export interface AccountSecretsTable {
  id: string;
  account_id: string;
  /** keyed hash of the secret, for bearer lookup without decrypting every row */
  lookup_hash: string;
  /** the secret itself, encrypted under the master key (HMAC needs the key) */
  secret_enc: string;
  created_at: number;
  /** null while current; set on rotation to the end of the overlap */
  expires_at: number | null;
}

export interface TenantsTable {
  id: string;
  account_id: string;
  slug: string;
  name: string;
  timezone: string;
  sending_window_start: string;
  sending_window_end: string;
  daily_first_touch_cap: number;
  rate_per_second: number;
  rate_burst: number;
  status: 'active' | 'suspended';
  created_at: number;
}

export interface PhoneLinesTable {
  id: string;
  tenant_id: string;
  phone_number: string;
  service: string;
  driver: string;
  /** JSON, encrypted (it can hold a BlueBubbles password) */
  driver_config_enc: string;
  capabilities: string;
  is_active: number;
  created_at: number;
}

export interface DB {
  accounts: AccountsTable;
  account_secrets: AccountSecretsTable;
  tenants: TenantsTable;
  phone_lines: PhoneLinesTable;
}
