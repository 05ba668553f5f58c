/** Picks the driver for a line; one instance per line and configuration. */
import type { DriverContext, LineDriver } from './types.js';
import { simulatorDriver } from './simulator/index.js';

export type DriverFactory = (ctx: DriverContext) => LineDriver;

export interface LineRef {
  id: string;
  phone_number: string;
  driver: string;
  driver_config: Record<string, unknown>;
  /** Identifies the configuration without reading it (stored lines have one). */
  config_key?: string;
}

export function driverRegistry(base: Omit<DriverContext, 'lineId' | 'phoneNumber' | 'config'>, extra: Record<string, DriverFactory> = {}) {
  const factories: Record<string, DriverFactory> = { simulator: simulatorDriver, ...extra };
  const instances = new Map<string, { key: string; driver: LineDriver }>();
  const contextFor = (line: LineRef): DriverContext => ({ ...base, lineId: line.id, phoneNumber: line.phone_number, config: line.driver_config });
  return {
    has: (name: string) => name in factories,
    /** The context a driver of this line runs with (also for webhook handlers outside the driver). */
    contextFor,
    forLine(line: LineRef): LineDriver {
      const key = `${line.driver}:${line.config_key ?? JSON.stringify(line.driver_config)}`;
      const cached = instances.get(line.id);
      if (cached && cached.key === key) return cached.driver;
      const factory = factories[line.driver];
      if (!factory) throw new Error(`no driver named ${line.driver}`);
      const driver = factory(contextFor(line));
      instances.set(line.id, { key, driver });
      return driver;
    },
  };
}

export type DriverRegistry = ReturnType<typeof driverRegistry>;
