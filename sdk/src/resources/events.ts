import { PageIterator } from '../pagination.js';
import { streamEvents, type StreamEvent, type StreamOptions } from '../sse.js';
import type { DevInboxPage, DevInboxQuery, EventRecord, EventsPage, EventsQuery, ReplayResult } from '../types.js';
import { Resource, seg, type CallOptions } from './base.js';

export class Events extends Resource {
  /**
   * `GET /api/v1/events`, newest first: `for await (const e of client.events.list({ status: 'failed' }))`
   * walks every page; `.page()` gives one page with `next_cursor`.
   */
  list(query: EventsQuery = {}, opts: CallOptions = {}): PageIterator<EventRecord, EventsPage> {
    const { cursor, ...rest } = query as { cursor?: string } & Record<string, string | number | undefined>;
    return new PageIterator<EventRecord, EventsPage>(
      (c) => this.core.request({ method: 'GET', path: '/api/v1/events', query: { ...rest, cursor: c }, retry: 'idempotent', ...opts }),
      (page) => page.events,
      cursor,
    );
  }

  /** `GET /api/v1/events/{id}`: one event with every delivery attempt. */
  get(eventId: string, opts: CallOptions = {}): Promise<EventRecord> {
    return this.core.request({ method: 'GET', path: `/api/v1/events/${seg(eventId)}`, retry: 'idempotent', ...opts });
  }

  /**
   * `POST /api/v1/events/{id}/replay`: deliver again now (to one subscription with
   * `subscriptionId`). A replay no destination took throws `DeliveryFailedError` with
   * `downstreamStatus`. Not retried automatically: a replay is a delivery.
   */
  replay(eventId: string, params: { subscriptionId?: string } = {}, opts: CallOptions = {}): Promise<ReplayResult> {
    return this.core.request({
      method: 'POST',
      path: `/api/v1/events/${seg(eventId)}/replay`,
      query: { subscription_id: params.subscriptionId },
      retry: 'unsafe',
      ...opts,
    });
  }

  /**
   * `GET /api/v1/events/stream` (SSE) as an async iterator that reconnects by itself, resuming
   * with `Last-Event-ID`: `for await (const e of client.events.stream()) { … }`.
   */
  stream(opts: StreamOptions = {}): AsyncGenerator<StreamEvent, void, undefined> {
    return streamEvents(this.core, opts);
  }
}

export class DevInbox extends Resource {
  /**
   * `GET /api/v1/dev-inbox`, oldest first: events recorded for a `https://dev-inbox`
   * subscription. Resume with `since: page.next_since`.
   */
  pull(query: DevInboxQuery = {}, opts: CallOptions = {}): Promise<DevInboxPage> {
    return this.core.request({ method: 'GET', path: '/api/v1/dev-inbox', query: query as Record<string, string | number>, retry: 'idempotent', ...opts });
  }
}
