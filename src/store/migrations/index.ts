import type { Migration } from 'kysely';
import * as m001 from './001_foundation.js';
import * as m002 from './002_messaging.js';
import * as m003 from './003_media.js';
import * as m004 from './004_events.js';
import * as m005 from './005_first_touch_index.js';
import * as m006 from './006_upload_token_voice_note_use.js';
import * as m007 from './007_durable_inbound.js';
import * as m008 from './008_hubspot.js';
import * as m009 from './009_console_sessions.js';
import * as m010 from './010_sends_and_group_exits.js';
import * as m011 from './011_hubspot_reply_push.js';
import * as m012 from './012_message_reactions.js';
import * as m013 from './013_receipts_in_place.js';
import * as m014 from './014_group_creations.js';
import * as m015 from './015_idempotency_leases.js';
import * as m016 from './016_hubspot_held_actions.js';
import * as m017 from './017_housekeeping_indexes.js';
import * as m018 from './018_attachment_file_deletion.js';
import * as m019 from './019_hubspot_auto_send_wait.js';
import * as m020 from './020_blob_key_indexes.js';
import * as m021 from './021_hubspot_held_reason.js';
import * as m022 from './022_hubspot_ui_domain.js';
import * as m023 from './023_hubspot_held_links_contact.js';
import * as m024 from './024_first_touch_days.js';
import * as m025 from './025_inbound_line_order_index.js';
import * as m026 from './026_growth_indexes.js';
import * as m027 from './027_reply_push_queue.js';
import * as m028 from './028_chat_list_recent.js';
import * as m029 from './029_event_log_indexes.js';
import * as m030 from './030_line_direct_chats.js';
import * as m031 from './031_console_session_secret.js';
import * as m032 from './032_send_path_btrees.js';
import * as m033 from './033_chat_search.js';

/** Numbered migrations, applied in key order; never edit one that has shipped. */
export const migrations: Record<string, Migration> = {
  '001_foundation': m001,
  '002_messaging': m002,
  '003_media': m003,
  '004_events': m004,
  '005_first_touch_index': m005,
  '006_upload_token_voice_note_use': m006,
  '007_durable_inbound': m007,
  '008_hubspot': m008,
  '009_console_sessions': m009,
  '010_sends_and_group_exits': m010,
  '011_hubspot_reply_push': m011,
  '012_message_reactions': m012,
  '013_receipts_in_place': m013,
  '014_group_creations': m014,
  '015_idempotency_leases': m015,
  '016_hubspot_held_actions': m016,
  '017_housekeeping_indexes': m017,
  '018_attachment_file_deletion': m018,
  '019_hubspot_auto_send_wait': m019,
  '020_blob_key_indexes': m020,
  '021_hubspot_held_reason': m021,
  '022_hubspot_ui_domain': m022,
  '023_hubspot_held_links_contact': m023,
  '024_first_touch_days': m024,
  '025_inbound_line_order_index': m025,
  '026_growth_indexes': m026,
  '027_reply_push_queue': m027,
  '028_chat_list_recent': m028,
  '029_event_log_indexes': m029,
  '030_line_direct_chats': m030,
  '031_console_session_secret': m031,
  '032_send_path_btrees': m032,
  '033_chat_search': m033,
};
