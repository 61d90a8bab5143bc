// Related words for recall's query expansion: a user asks for "today's journal page" and the memory
// says "daily note"; they ask for "the books I haven't finished" and the memory keeps a reading list by
// status. Each group below is a set of synonyms and near-synonyms, hand-written as a thesaurus of
// software work, operations, documents, note-taking, people and time would list them: general
// vocabulary, not the words of any one memory. A message's own terms are searched as before; the terms
// of every group one of its words (or phrases, "how long", "money back") belongs to are searched too, at
// a lower weight, a group counting as one word, and one related word alone never attaches a file
// (recallRank.ts). Expansion is one step: a related word's own groups are not followed. Words are read
// like the index reads them (recallText.ts), so stop words drop out of a group ("file", "code", "fix"
// say nothing) and stems meet ("deploys" finds the group of "deploy"). The table is stemmed once, when
// the module loads. It has English words only: Chinese messages are searched as before.
import { stem } from 'porter2';
import { recallTerm, recallTokens } from './recallText';

/** Comma-separated; an entry of several words is a phrase: it calls up its group but is not searched for. */
const RELATED_GROUPS: readonly string[] = [
  // Defects, tickets and failures.
  'ticket, issue, bug report, tracker, issue tracker, backlog, task list',
  'bug, defect, fault, glitch, flaw, regression',
  'error, exception, failure, fault, traceback, stack trace, stacktrace',
  'crash, crashed, panic, abort, segfault, hang, freeze',
  'broken, broke, failing, fails, failed, malfunction, outage, down',
  'incident, outage, downtime, emergency, postmortem, disruption',
  'repair, resolve, solve, remedy, workaround, hotfix',
  'debug, debugging, troubleshoot, diagnose, investigate, investigation',
  // Code and its parts.
  'variable, field, attribute, property, parameter, argument, column',
  'name, naming, call, title, label, identifier, rename',
  'type, types, typing, type hint, annotation, annotate, signature',
  'usage, usages, reference, references, occurrence, occurrences, caller, callers, call site',
  'refactor, refactoring, restructure, cleanup, tidy, simplify',
  'comment, comments, docstring, annotation',
  'dependency, dependencies, library, package, lib, third party, vendor',
  'plugin, plugins, extension, extensions, addon, add-on, module',
  'install, installed, installation, setup',
  'editor, ide, text editor, vim, emacs',
  'shortcut, keybinding, hotkey, keyboard shortcut',
  'template, templates, boilerplate, scaffold, skeleton',
  'regex, regular expression, pattern',
  // Tests.
  'test, tests, testing, spec, specs, test suite, unit test, integration test, assertion',
  'mock, mocks, mocking, fake, stub, stubs, dummy, test double, spy',
  'fixture, fixtures, seed, sample data, test data',
  // Data and storage.
  'database, db, datastore, data store, rdbms',
  'query, queries, sql, statement, select',
  'table, tables, schema, relation',
  'migration, migrations, migrate, schema change, alter table',
  'record, records, row, rows, entry, entries',
  'data, dataset, datasets, records',
  'export, exports, extract, extracts, dump, download',
  'import, imports, ingest, ingestion, load, loading, intake',
  'backfill, reload, reprocess, rerun, re-run, replay, reingest',
  'storage, bucket, blob, object store, disk, drive',
  'disk, drive, hard drive, external drive, ssd, volume',
  'backup, backups, snapshot, snapshots, archive, copy',
  'restore, recover, recovery, roll forward',
  'retention, retain, keep, kept, preserve, expire, expiry',
  'delete, deletion, remove, erase, purge, wipe, prune, cleanup, drop',
  'duplicate, duplicated, duplicates, twice, double, repeated, dedupe, deduplicate, idempotent, idempotency',
  'cache, caching, cached, memoize, memoization',
  'expire, expiry, expiration, ttl, lifetime, valid, validity, stale',
  'privacy, pii, gdpr, personal data, personal information, sensitive, confidential',
  'mask, masking, redact, redaction, obfuscate, anonymise, anonymize, scrub, desensitize',
  'event, events, message, messages, payload, webhook',
  'queue, queues, worker, workers, consumer, consumers, background job',
  'job, jobs, task, tasks, dag, workflow',
  'sync, synchronise, synchronize, syncing, synced, replicate, mirror',
  'conflict, conflicts, merge conflict, mismatch, discrepancy, diverge, inconsistent, out of sync',
  'version, versions, revision, revisions, variant, copy',
  // Shipping and operations.
  'deploy, deployment, deploys, release, releases, ship, rollout, roll out, publish, launch, go live',
  'rollback, roll back, revert, downgrade, undo, go back',
  'production, prod, live, production environment',
  'staging, stage, preprod, pre-production, test environment, sandbox',
  'environment, environments, env, config, configuration, settings, setup',
  'secret, secrets, password, passwords, credential, credentials, token, api key',
  'build, builds, compile, compilation, bundle, artifact, artefact',
  'ci, continuous integration, build server, pipeline, checks',
  'monitor, monitoring, metric, metrics, dashboard, dashboards, chart, graph, observability, telemetry',
  'alert, alerts, alerting, alarm, pager, notify, notification, wake',
  'oncall, on-call, on call, duty, rota, rotation, escalation',
  'notify, notification, notifications, email, mail, message, ping, inform',
  'schedule, scheduled, cron, timer, recurring, kick off, trigger',
  'retry, retries, retried, reattempt, try again, backoff, redeliver',
  'timeout, timeouts, time out, deadline, time limit',
  'limit, limits, cap, quota, ceiling, maximum, threshold, rate limit, throttle, throttling',
  'increase, raise, bump, grow, scale up, upgrade, boost',
  'decrease, reduce, lower, shrink, cut, scale down',
  'slow, slowness, latency, lag, sluggish, performance, speed',
  'duration, how long, latency, elapsed, runtime, run time, timing, took, lasted',
  'large, big, huge, heavy, bulky, massive, oversized, bloated',
  'memory, ram, oom, out of memory, heap',
  'cost, costs, spend, spending, budget, bill, expense, credits, price',
  'server, servers, host, machine, instance, node, vm',
  'container, image, docker, pod, kubernetes, k8s',
  'network, request, requests, traffic, http, call',
  'api, endpoint, endpoints, route, routes, interface, service, rest',
  'route, routing, router, handler, url, path',
  'log, logs, logging, logger, trace, journal',
  // Version control and review.
  'commit, commits, changeset, revision, patch',
  'pr, pull request, merge request, mr, patch, diff, changeset',
  'review, reviews, reviewer, approve, approval, approved, sign off, lgtm',
  'branch, branches, fork, trunk, main, master',
  'merge, merged, merging, squash, rebase',
  'repo, repository, repositories, git',
  // Security and access.
  'login, log in, sign in, signin, authentication, authenticate, auth, sso, oauth',
  'permission, permissions, access, authorization, authorisation, role, privilege, rights, admin',
  'session, sessions, cookie, cookies, token',
  'anonymous, unauthenticated, guest, visitor, logged out',
  // Commerce and money.
  'payment, payments, pay, charge, charged, billing, invoice, transaction, transactions, purchase',
  'refund, refunds, refunded, money back, reimburse, reimbursement, chargeback',
  'money, cash, funds, currency, amount, sum',
  'price, prices, pricing, cost, fee, amount, rate',
  'customer, customers, client, clients, shopper, shoppers, buyer, buyers, consumer, patron',
  'cart, basket, trolley, shopping bag, checkout',
  'order, orders, purchase, purchases',
  'product, products, item, items, goods, merchandise, sku',
  'shop, store, storefront, catalog, catalogue',
  // Interfaces.
  'ui, user interface, interface, screen, view, frontend, front end',
  'color, colour, colors, colours, palette, theme, shade, hue, tint',
  'style, styles, styling, stylesheet, css',
  'component, components, widget, widgets, element',
  'button, banner, header, footer, menu, toolbar',
  'hide, hidden, conceal, disable, disabled, turn off, gate',
  'enable, enabled, turn on, activate, switch on',
  'flag, flags, feature flag, toggle, toggles, switch, feature toggle, kill switch',
  'search, searching, lookup, look up, query',
  'synonym, synonyms, alias, aliases, equivalent, alternate name',
  'translate, translation, translations, localisation, localization, i18n, l10n, locale',
  'language, languages, tongue, dialect, locale',
  // Conventions and writing.
  'style, convention, conventions, guideline, guidelines, rule, rules, standard, standards',
  'format, formatting, formatted, layout',
  'lint, linter, linting, static analysis',
  'document, documents, documentation, docs, doc, wiki, manual, guide, handbook, readme',
  'procedure, process, steps, runbook, playbook, instructions, checklist, how-to',
  'summary, summarise, summarize, overview, recap, abstract, synopsis',
  'tone, voice, register, wording, phrasing',
  'quote, quotes, quotation, quotations, excerpt, passage',
  'cite, citation, citations, reference, references, bibliography, footnote, source, sources',
  'paper, papers, article, articles, publication, publications, study, journal',
  'thesis, dissertation, manuscript, monograph',
  'chapter, chapters, section, sections, part',
  'deadline, due, due date, submission, hand in, submit',
  // Notes and personal knowledge.
  'note, notes, memo, memos, jotting, entry',
  'thought, thoughts, idea, ideas, notion, insight, musing, jot, capture',
  'inbox, capture, captures, scratch, scratchpad, unsorted, triage, fleeting',
  'journal, diary, daily, daily note, daybook, log, logbook',
  'book, books, reading, literature, novel, novels, volume, read',
  'finish, finished, unfinished, complete, completed, incomplete, pending, progress, status',
  'status, state, progress, in progress, wip, draft',
  'rating, ratings, rate, rated, score, stars, rank, ranking, best, favourite, favorite',
  'screenshot, screenshots, screen capture, screen shot, image, images, picture, pictures, photo, photos, ' +
    'attachment, attachments',
  'attachment, attachments, attach, attached, embed, embedded, upload, uploads',
  'paste, pasted, pasting, copy, drop, insert',
  'folder, folders, directory, directories, dir, path, location',
  'link, links, linking, backlink, backlinks, wikilink, hyperlink, url',
  'tag, tags, tagging, label, labels, category, categories, hashtag, topic',
  'rename, renaming, renamed, move, retitle',
  'phone, mobile, smartphone, cellphone, tablet, device, laptop, desktop, computer',
  'vault, knowledge base, second brain, notebook',
  'pdf, export, print, typeset, render',
  // People and roles.
  'person, people, someone, somebody, individual, colleague, coworker',
  'owner, owners, owns, responsible, maintainer, maintainers, accountable, in charge',
  'team, teams, colleague, colleagues, coworker, coworkers, teammate, teammates, squad',
  'manager, lead, boss, supervisor, head',
  'role, roles, job title, position, background, experience, expertise, expert, specialist',
  'user, users, account, accounts, member, members, profile',
  'partner, partners, vendor, vendors, supplier, third party, integrator, merchant, merchants',
  'meeting, meetings, standup, call, sync up',
  'preference, preferences, prefer, preferred, habit, habits',
  // Time.
  'date, dates, day, days, calendar, today',
  'time, times, timestamp, datetime, clock, hour',
  'daily, every day, each day, per day, nightly',
  'night, nightly, overnight, evening, midnight',
  'week, weeks, weekly, sprint',
  'month, months, monthly',
  'year, years, yearly, annual, annually',
  'yesterday, previous day, last night',
  'history, historical, past, earlier, previous, prior',
  'holiday, holidays, vacation, weekend, day off, public holiday, festival, freeze, code freeze',
  'morning, afternoon, business hours, office hours, working hours, daytime',
];

const WORDS = new Map<string, Set<string>>();
const PHRASES = new Map<string, Set<string>>();
let longestPhrase = 1;

/** The term a table word is searched as, or null for a stop word. */
function tableTerm(word: string): string | null {
  const raw = recallTokens(word);
  return raw.length === 1 ? recallTerm(raw[0]) : null;
}

const phraseStems = new Map<string, string>();

/**
 * A raw token as phrases are matched: stemmed, stop words kept ("how long", "go back"). Memoised: recall
 * runs every turn.
 */
function phraseToken(raw: string): string {
  if (/\d/.test(raw) || raw.length < 3) return raw;
  let stemmed = phraseStems.get(raw);
  if (stemmed === undefined) {
    if (phraseStems.size >= 10_000) phraseStems.clear();
    stemmed = stem(raw);
    phraseStems.set(raw, stemmed);
  }
  return stemmed;
}

function addAll(map: Map<string, Set<string>>, key: string, terms: readonly string[]): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  for (const t of terms) if (t !== key) set.add(t);
}

for (const group of RELATED_GROUPS) {
  const entries = group
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const terms = [...new Set(entries.map(tableTerm).filter((t): t is string => t !== null))];
  for (const entry of entries) {
    const raw = recallTokens(entry);
    if (raw.length === 1) {
      const t = recallTerm(raw[0]);
      if (t) addAll(WORDS, t, terms);
    } else if (raw.length > 1) {
      addAll(PHRASES, raw.map(phraseToken).join(' '), terms);
      longestPhrase = Math.max(longestPhrase, raw.length);
    }
  }
}

/** How many groups the table holds (for tests). */
export const RELATED_GROUP_COUNT = RELATED_GROUPS.length;

/**
 * A form of the same word: recall's prefix and fuzzy match already find it ("configur" and "config",
 * "env" and "environ"), and searching it again would count it twice.
 */
function sameWord(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  if (short.length >= 3 && long.startsWith(short)) return true;
  return short.length >= 5 && long.startsWith(short.slice(0, 5));
}

export interface RelatedConcept {
  /** The message's term (or phrase) the group was called up by. */
  from: string;
  /** Its related terms, none a form of one of the message's own terms. */
  terms: string[];
}

/**
 * The related terms of a message, per word or phrase of it that belongs to a group (`own` are the
 * message's terms as queryTerms gives them). A word in several groups gets all their terms.
 */
export function relatedConcepts(text: string, own: readonly string[]): RelatedConcept[] {
  const out: RelatedConcept[] = [];
  const add = (from: string, set: Set<string> | undefined): void => {
    const terms = set ? [...set].filter((t) => !own.some((o) => sameWord(o, t))) : [];
    if (terms.length > 0) out.push({ from, terms });
  };
  for (const t of own) add(t, WORDS.get(t));
  const raw = recallTokens(text).map(phraseToken);
  for (let i = 0; i < raw.length; i++) {
    let key = raw[i];
    for (let n = 2; n <= longestPhrase && i + n <= raw.length; n++) {
      key += ` ${raw[i + n - 1]}`;
      add(key, PHRASES.get(key));
    }
  }
  return out;
}

/** Every related term of a message, once. */
export function relatedTerms(text: string, own: readonly string[]): string[] {
  return [...new Set(relatedConcepts(text, own).flatMap((c) => c.terms))];
}
