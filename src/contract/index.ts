/**
 * Every operation of the API (and every webhook it sends), for what works over all of them: the OpenAPI document's
 * checks, the SDK's generated types and the contract tests.
 */
import type { OperationSpec } from './operation.js';
import type { WebhookSpec } from './webhook.js';
import { messageReceived } from './webhook-message-received.js';
import { messageDelivered, messageEdited, messageFailed, messageReacted, messageRead, messageSent } from './webhook-message-status.js';
import { listPhoneNumbers } from './phone-numbers-list.js';
import { sendMessage } from './messages-send.js';
import { getMessage } from './messages-get.js';
import { editMessage } from './messages-edit.js';
import { reactToMessage } from './messages-react.js';
import { createChat } from './chats-create.js';
import { sendChatMessage } from './chats-send-message.js';
import { listChatMessages } from './chats-list-messages.js';
import { addChatParticipant } from './chats-add-participant.js';
import { removeChatParticipant } from './chats-remove-participant.js';
import { updateChat } from './chats-update.js';
import { leaveChat } from './chats-leave.js';
import { createAttachment } from './attachments-create.js';
import { uploadAttachment } from './attachments-upload.js';
import { getAttachment } from './attachments-get.js';
import { getAttachmentContent } from './attachments-content.js';
import { stageVoiceNote } from './voice-notes-stage.js';
import { listEvents } from './events-list.js';
import { getEvent } from './events-get.js';
import { replayEvent } from './events-replay.js';
import { streamEvents } from './events-stream.js';
import { listDevInbox } from './dev-inbox-list.js';
import { createWebhookSubscription } from './webhook-subscriptions-create.js';
import { listWebhookSubscriptions } from './webhook-subscriptions-list.js';
import { getWebhookSubscription } from './webhook-subscriptions-get.js';
import { deleteWebhookSubscription } from './webhook-subscriptions-delete.js';
import { rotateWebhookSubscriptionSecret } from './webhook-subscriptions-rotate-secret.js';
import { adminCreateAccount } from './admin-accounts-create.js';
import { adminListAccounts } from './admin-accounts-list.js';
import { adminGetAccount } from './admin-accounts-get.js';
import { adminUpdateAccount } from './admin-accounts-update.js';
import { adminRotateAccountSecret } from './admin-accounts-rotate-secret.js';
import { adminCreateTenant } from './admin-tenants-create.js';
import { adminListTenants } from './admin-tenants-list.js';
import { adminGetTenant } from './admin-tenants-get.js';
import { adminUpdateTenant } from './admin-tenants-update.js';
import { adminCreateLine } from './admin-lines-create.js';
import { adminListLines } from './admin-lines-list.js';
import { adminUpdateLine } from './admin-lines-update.js';
import { adminLineHealth } from './admin-lines-health.js';
import { adminAdvanceClock } from './admin-clock-advance.js';
import { adminSimulatorSent } from './admin-simulator-sent.js';
import { adminSimulatorContent } from './admin-simulator-content.js';
import { adminSimulatorRestart } from './admin-simulator-restart.js';
import { adminSimulatorInbound } from './admin-simulator-inbound.js';
import { healthLive } from './health-live.js';
import { healthReady } from './health-ready.js';
import { bluebubblesWebhook } from './bluebubbles-webhook.js';
import { listChats } from './chats-list.js';
import { getSettings } from './settings-get.js';
import { updateSettings } from './settings-update.js';
import { updateWebhookSubscription } from './webhook-subscriptions-update.js';
import { testWebhookSubscription } from './webhook-subscriptions-test.js';
import { getStats } from './stats-get.js';
import { getVoiceNoteOgg } from './voice-notes-ogg.js';
import { getSigningSecret } from './signing-secret-get.js';
import { rotateSigningSecret } from './signing-secret-rotate.js';
import { createConsoleSession } from './console-sessions-create.js';
import { getConsoleSession } from './console-sessions-get.js';
import { deleteConsoleSession } from './console-sessions-delete.js';
import { startHubSpotInstall } from './hubspot-start-install.js';
import { listHubSpotInstalls } from './hubspot-list-installs.js';
import { updateHubSpotInstall } from './hubspot-update-install.js';
import { uninstallHubSpot } from './hubspot-uninstall.js';
import { listHubSpotAutoSends } from './hubspot-list-auto-sends.js';
import { listHubSpotHeldActions } from './hubspot-list-held-actions.js';
import { hubspotOAuthCallback } from './hubspot-oauth-callback.js';
import { hubspotContactCard } from './hubspot-card.js';
import { hubspotCardSend } from './hubspot-card-send.js';
import { hubspotWorkflowSend } from './hubspot-workflow-send.js';
import { hubspotWebhook } from './hubspot-webhook.js';

export const operations: readonly OperationSpec[] = [
  listPhoneNumbers,
  sendMessage,
  getMessage,
  editMessage,
  reactToMessage,
  createChat,
  sendChatMessage,
  listChatMessages,
  addChatParticipant,
  removeChatParticipant,
  updateChat,
  leaveChat,
  createAttachment,
  uploadAttachment,
  getAttachment,
  getAttachmentContent,
  stageVoiceNote,
  listEvents,
  getEvent,
  replayEvent,
  streamEvents,
  listDevInbox,
  createWebhookSubscription,
  listWebhookSubscriptions,
  getWebhookSubscription,
  deleteWebhookSubscription,
  rotateWebhookSubscriptionSecret,
  adminCreateAccount,
  adminListAccounts,
  adminGetAccount,
  adminUpdateAccount,
  adminRotateAccountSecret,
  adminCreateTenant,
  adminListTenants,
  adminGetTenant,
  adminUpdateTenant,
  adminCreateLine,
  adminListLines,
  adminUpdateLine,
  adminLineHealth,
  adminAdvanceClock,
  adminSimulatorSent,
  adminSimulatorContent,
  adminSimulatorRestart,
  adminSimulatorInbound,
  healthLive,
  healthReady,
  bluebubblesWebhook,
  listChats,
  getSettings,
  updateSettings,
  updateWebhookSubscription,
  testWebhookSubscription,
  getStats,
  getVoiceNoteOgg,
  getSigningSecret,
  rotateSigningSecret,
  createConsoleSession,
  getConsoleSession,
  deleteConsoleSession,
  startHubSpotInstall,
  listHubSpotInstalls,
  updateHubSpotInstall,
  uninstallHubSpot,
  listHubSpotAutoSends,
  listHubSpotHeldActions,
  hubspotOAuthCallback,
  hubspotContactCard,
  hubspotCardSend,
  hubspotWorkflowSend,
  hubspotWebhook,
];

/** Every webhook the service sends to subscribers (OpenAPI `webhooks`). */
export const webhooks: readonly WebhookSpec[] = [messageReceived, messageSent, messageDelivered, messageRead, messageFailed, messageReacted, messageEdited];

export * from './operation.js';
