// Who holds a host's current settings and tells sessions when they change (VS Code's configuration events,
// the CLI's settings file, tests).
import { resolveSettings, type EngramSettings, type RawSettings, type ResolvedSettings } from './engramSettings';

/**
 * What a session needs of a settings owner. An interface, not the class: the extension's bundle and
 * the lazily loaded engine chunk each have their own copy of SettingsStore.
 */
export interface SettingsSource {
  readonly settings: EngramSettings;
  onChange(listener: (settings: EngramSettings, previous: EngramSettings) => void): () => void;
}

/** Holds the current settings and tells listeners when they change (VS Code's configuration events, tests). */
export class SettingsStore implements SettingsSource {
  private current: ResolvedSettings;
  private readonly listeners = new Set<(settings: EngramSettings, previous: EngramSettings) => void>();

  constructor(raw: RawSettings = {}) {
    this.current = resolveSettings(raw);
  }

  /** A store holding settings that were already resolved (a host with no configuration to follow). */
  static of(settings: EngramSettings): SettingsStore {
    const store = new SettingsStore();
    store.current = { settings, problems: [] };
    return store;
  }

  get settings(): EngramSettings {
    return this.current.settings;
  }

  get problems(): readonly string[] {
    return this.current.problems;
  }

  /** Replaces the raw values (everything the host read, not a patch) and notifies when the result differs. */
  update(raw: RawSettings): void {
    const previous = this.current.settings;
    this.current = resolveSettings(raw);
    if (JSON.stringify(previous) === JSON.stringify(this.current.settings)) return;
    for (const listener of [...this.listeners]) listener(this.current.settings, previous);
  }

  onChange(listener: (settings: EngramSettings, previous: EngramSettings) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
