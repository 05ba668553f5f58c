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
  /** production HubSpot portals the tenant may connect (migration 008) */
  crm_install_slots?: number;
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

export interface LeadsTable {
  id: string;
  tenant_id: string;
  handle: string;
  created_at: number;
}

export interface ChatsTable {
  id: string;
  tenant_id: string;
  is_group: number;
  lead_id: string | null;
  /** the line pinned to the conversation */
  line_id: string | null;
  convo_id: string;
  /** the provider's chat identifier (group chats) */
  chat_key: string | null;
  display_name: string | null;
  created_at: number;
  /** when the line left the group (migration 010); null or absent while it is in it */
  left_at?: number | null;
}

export interface ChatParticipantsTable {
  chat_id: string;
  handle: string;
  added_at: number;
}

export interface MessagesTable {
  id: string;
  tenant_id: string;
  chat_id: string;
  line_id: string | null;
  direction: 'outbound' | 'inbound';
  sender_handle: string | null;
  /** JSON array of parts */
  parts: string;
  effect: string | null;
  /** `sending`: recorded, the line has not answered yet (see domain/messaging/reconcile.ts) */
  status: 'sending' | 'sent' | 'delivered' | 'read' | 'edited' | 'failed' | 'received';
  provider_guid: string | null;
  first_touch: number;
  error_code: number | null;
  sent_at: number;
  delivered_at: number | null;
  read_at: number | null;
  edited_at: number | null;
}

export interface MessageReactionsTable {
  message_id: string;
  /** the contact's handle, or `me` (the tenant's own tapback) */
  sender: string;
  reaction: string;
  reacted_at: number;
}

export interface IdempotencyKeysTable {
  tenant_id: string;
  route: string;
  key: string;
  /** hash of the whole request */
  fingerprint: string;
  /** JSON of the fields whose change is a collision (recipient, body, voice note) */
  identity: string;
  state: 'in_progress' | 'done';
  /** Legacy: the HTTP status of replies recorded before outcomes were (null since; see domain/messaging/idempotency.ts). */
  http_status: number | null;
  /** JSON of the recorded outcome: { kind: 'result', result } or { kind: 'failure', failure } */
  response: string | null;
  created_at: number;
  expires_at: number;
  /** The request holding an in-progress record, and until when (business ms; renewed while it runs). Null on records before migration 015. */
  owner: string | null;
  lease_until: number | null;
  /** JSON array: the message recorded for each step of the request so far (written with the message). */
  message_ids: string | null;
}

export interface RateBucketsTable {
  tenant_id: string;
  tokens: number;
  updated_at: number;
}

/** A group creation whose outcome is not recorded yet (migration 014; domain/messaging/group-creations.ts). */
export interface GroupCreationsTable {
  /** `gc_…`, also the ref the driver gets with the creation */
  id: string;
  tenant_id: string;
  line_id: string;
  /** JSON array of the normalized handles */
  handles: string;
  /** the first message's text */
  text: string;
  display_name: string | null;
  idempotency_key: string | null;
  /** the ids the chat and its first message get when recorded */
  chat_id: string;
  message_id: string;
  /** the line's first-touch reservation: when it was taken, and the line's last first touch before it */
  reserved_at: number;
  previous_first_touch_at: number | null;
  created_at: number;
}

export interface LineStateTable {
  line_id: string;
  service_epoch: string;
  /** reservation of the line's last first touch (compare-and-set, so processes can't both take it) */
  last_first_touch_at: number | null;
  updated_at: number;
}

/** A line's one-to-one chat by the provider's name for it (BlueBubbles' chat guid), keyed by the normalized handle. */
export interface LineDirectChatsTable {
  line_id: string;
  handle: string;
  chat_key: string;
  updated_at: number;
}

/** First touches reserved per project and local day, against its daily cap (store/first-touch-days.ts). */
export interface FirstTouchDaysTable {
  tenant_id: string;
  /** start of the project's local day (epoch ms) */
  day_start: number;
  /** reservations taken that day and not given back, failed first touches included */
  n: number;
}

export interface SimulatorSentTable {
  id: string;
  line_id: string;
  entry: string;
  created_at: number;
}

export interface AttachmentsTable {
  id: string;
  tenant_id: string;
  /** upload (att_…) or inbound (in_…) */
  origin: 'upload' | 'inbound';
  filename: string | null;
  content_type: string;
  declared_size: number | null;
  size_bytes: number | null;
  state: 'pending' | 'uploaded';
  blob_key: string;
  created_at: number;
  uploaded_at: number | null;
  expires_at: number;
  /** sha256 (hex) of the upload slot's token; absent on inbound media. */
  upload_token_hash?: string | null;
  /** When housekeeping deleted the file (past retention); the row stays and still answers 5001 "has expired". */
  file_deleted_at?: number | null;
}

export interface VoiceNotesTable {
  id: string;
  tenant_id: string;
  line_id: string;
  /** the line's service epoch at staging; a restart voids the note */
  service_epoch: string;
  blob_key: string;
  size_bytes: number;
  duration_seconds: number;
  transcoded: number;
  created_at: number;
  expires_at: number;
  /** set by the send that used the note; a used note cannot be sent again */
  used_at?: number | null;
}

export interface WebhookSubscriptionsTable {
  id: string;
  tenant_id: string;
  url: string;
  /** JSON string[] of event types */
  events: string;
  secret_enc: string;
  /** during a rotation overlap, the previous secret still signs */
  previous_secret_enc: string | null;
  previous_expires_at: number | null;
  created_at: number;
  /** set while the endpoint is disabled: it receives nothing (migration 009) */
  disabled_at?: number | null;
}

export interface ConsoleSessionsTable {
  /** sha256 (hex) of the cookie's token */
  id_hash: string;
  kind: 'tenant' | 'operator';
  tenant_id: string | null;
  /** a tenant's: the account secret it was signed in with (migration 031); null for the operator's, and for tenants' opened before */
  secret_id: string | null;
  csrf_token: string;
  created_at: number;
  expires_at: number;
}

export interface EventsTable {
  id: string;
  tenant_id: string;
  type: string;
  /** dedup key `<namespace>:msg:<guid>` */
  event_id: string;
  lead_id: string | null;
  convo_id: string | null;
  /** the envelope, serialized once: every attempt and replay sends these bytes */
  payload: string;
  status: 'pending' | 'delivered' | 'failed' | 'dev_inbox';
  /** 1 when a dev-inbox subscription matched */
  dev_inbox: number;
  delivered_at: number | null;
  created_at: number;
}

export interface DeliveryJobsTable {
  id: string;
  event_ref: string;
  subscription_id: string;
  tenant_id: string;
  url: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  /** real-time ms when the next attempt is due */
  next_attempt_at: number;
  /** real-time ms until which a worker holds the job */
  lease_until: number | null;
  /** the worker holding the claim (null when none does): only it may release or finish it */
  locked_by: string | null;
  created_at: number;
}

export interface DeliveryAttemptsTable {
  id: string;
  event_ref: string;
  subscription_id: string;
  at: number;
  status: number | null;
  duration_ms: number;
  error: string | null;
}

/** A provider's webhook body, stored before it is answered; the intake worker processes it. */
export interface InboundIntakeTable {
  id: string;
  line_id: string;
  /** the body as received (JSON text) */
  body: string;
  state: 'pending' | 'failed';
  attempts: number;
  next_attempt_at: number;
  lease_until: number | null;
  locked_by: string | null;
  last_error: string | null;
  created_at: number;
}

/** Per line: how far catch-up has walked the provider's messages, and who is walking. */
export interface InboundCursorsTable {
  line_id: string;
  /** the provider's time (BlueBubbles' dateCreated, ms) of the last message walked; null until the first catch-up */
  high_water_ms: number | null;
  /** the newest message on the provider when the line was first caught up: it and older ones are history, never imported */
  floor_ms: number | null;
  lease_until: number | null;
  locked_by: string | null;
  /** when catch-up last finished a pass (service clock) */
  checked_at: number | null;
  updated_at: number;
}

export interface HubSpotInstallsTable {
  portal_id: string;
  tenant_id: string;
  /** HubSpot's accountType: STANDARD, SANDBOX, DEVELOPER_TEST, APP_DEVELOPER */
  account_type: string;
  sandbox: number;
  status: 'active' | 'uninstalled' | 'token_invalid';
  /** sealed; null once uninstalled (the tokens are deleted, not flagged) */
  access_token_enc: string | null;
  refresh_token_enc: string | null;
  /** business-clock ms when the access token expires */
  expires_at: number | null;
  /** bumped by every token change: a refresh is a compare-and-set on it */
  token_version: number;
  /** real-time ms until which one process holds the right to refresh */
  refresh_lease_until: number | null;
  auto_send_enabled: number;
  auto_send_template: string | null;
  auto_send_line_id: string | null;
  installed_at: number;
  updated_at: number;
  /** business-clock ms: reply push waits for HubSpot's 429 window until then */
  push_paused_until: number | null;
  /** account details' uiDomain (app.hubspot.com, app-eu1.hubspot.com, …): where the portal's records are; null until learned (022) */
  ui_domain: string | null;
}

export interface HubSpotOAuthStatesTable {
  /** sha256 of the state handed out: the state itself is a credential */
  state_hash: string;
  tenant_id: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface HubSpotCallCountsTable {
  portal_id: string;
  /** YYYY-MM-DD in the tenant's timezone */
  day: string;
  kind: string;
  count: number;
}

export interface HubSpotAutoSendsTable {
  id: string;
  tenant_id: string;
  portal_id: string;
  object_id: string;
  event_id: string;
  status: 'pending' | 'sent' | 'failed' | 'skipped';
  reason: string | null;
  code: number | null;
  message_id: string | null;
  attempts: number;
  /** business-clock ms (the sending window opens by it) */
  next_attempt_at: number;
  /** real-time ms */
  lease_until: number | null;
  /** Kept once the contact was read, while the send waits for time (migration 019). */
  phone?: string | null;
  text?: string | null;
  created_at: number;
  updated_at: number;
}

export interface HubSpotContactLinksTable {
  tenant_id: string;
  handle: string;
  portal_id: string;
  contact_id: string;
  linked_at: number;
  /** 1 once the reply push has queued the replies recorded before this link was visible (migration 027) */
  settled: number;
}

export interface HubSpotReplyPushesTable {
  message_id: string;
  portal_id: string;
  tenant_id: string;
  contact_id: string;
  /** pending: no communication known; created: communication_id known, association due; pushed; failed: given up */
  state: 'pending' | 'created' | 'pushed' | 'failed';
  /** 1 when a create may have reached HubSpot without its answer reaching us: look it up before creating again */
  create_unknown: number;
  communication_id: string | null;
  attempts: number;
  /** business-clock ms until which one process owns this push */
  lease_until: number | null;
  last_error: string | null;
  /** the reply's time: the push order and the communication's hs_timestamp */
  sent_at: number;
  created_at: number;
  updated_at: number;
  pushed_at: number | null;
}

export interface HubSpotHeldActionsTable {
  id: string;
  tenant_id: string;
  portal_id: string;
  callback_id: string;
  object_id: string;
  /** the recipient (E.164) and the rendered text, as the action asked */
  phone: string;
  text: string;
  /** 1 when `phone` is the contact's own (sending links it to the contact, for reply push); 0 for a phone the action's input named (migration 023) */
  links_contact: number;
  /** held: waiting to send; completing: outcome known, HubSpot to be told; completed; abandoned: HubSpot could not be told */
  state: 'held' | 'completing' | 'completed' | 'abandoned';
  /** JSON: the outcome HubSpot is told (SUCCESS with the sent message, or FAIL_CONTINUE with the error) */
  outcome: string | null;
  message_id: string | null;
  attempts: number;
  /** business-clock ms */
  next_attempt_at: number;
  /** business-clock ms: not sent by then, the action completes FAIL_CONTINUE (before HubSpot's hold ends) */
  send_by: number;
  /** business-clock ms: when HubSpot's hold (hs_expiration_duration) ends */
  expires_at: number;
  owner: string | null;
  /** business-clock ms until which `owner` works the row */
  lease_until: number | null;
  last_error: string | null;
  /** held: the time limit it waits for, in the workflow answer's words ('outside sending window', 'lines saturated'); null once no longer held (and on rows older than migration 021) */
  reason: string | null;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
}

export interface HubSpotPushStateTable {
  tenant_id: string;
  /** business-clock ms: one process runs the tenant's reply push at a time */
  lease_until: number | null;
  next_run_at: number;
  breaker_state: 'closed' | 'open';
  consecutive_failures: number;
  opened_at: number | null;
  last_error: string | null;
  last_push_at: number | null;
}

export interface DB {
  console_sessions: ConsoleSessionsTable;
  inbound_intake: InboundIntakeTable;
  inbound_cursors: InboundCursorsTable;
  hubspot_reply_pushes: HubSpotReplyPushesTable;
  hubspot_push_state: HubSpotPushStateTable;
  hubspot_held_actions: HubSpotHeldActionsTable;
  hubspot_installs: HubSpotInstallsTable;
  hubspot_oauth_states: HubSpotOAuthStatesTable;
  hubspot_call_counts: HubSpotCallCountsTable;
  hubspot_auto_sends: HubSpotAutoSendsTable;
  hubspot_contact_links: HubSpotContactLinksTable;
  webhook_subscriptions: WebhookSubscriptionsTable;
  events: EventsTable;
  delivery_jobs: DeliveryJobsTable;
  delivery_attempts: DeliveryAttemptsTable;
  attachments: AttachmentsTable;
  voice_notes: VoiceNotesTable;
  leads: LeadsTable;
  chats: ChatsTable;
  chat_participants: ChatParticipantsTable;
  messages: MessagesTable;
  message_reactions: MessageReactionsTable;
  idempotency_keys: IdempotencyKeysTable;
  rate_buckets: RateBucketsTable;
  line_state: LineStateTable;
  line_direct_chats: LineDirectChatsTable;
  first_touch_days: FirstTouchDaysTable;
  group_creations: GroupCreationsTable;
  simulator_sent: SimulatorSentTable;
  accounts: AccountsTable;
  account_secrets: AccountSecretsTable;
  tenants: TenantsTable;
  phone_lines: PhoneLinesTable;
}
