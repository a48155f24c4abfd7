import { isIP } from 'node:net';

const MINUTE = 60_000;
/** Failures of one e-mail from one client network within this window count towards its delay. */
export const FAILURE_WINDOW_MS = 15 * MINUTE;
/** Free failures before a delay applies; then 30 s, doubling with each failure, capped below. */
export const FREE_FAILURES = 5;
export const MAX_DELAY_MS = 15 * MINUTE;
/**
 * Distinct client networks with failures of one e-mail before a delay applies on every network,
 * the owner's too: weighed by networks, not failures, so that a few networks cannot lock the owner
 * out everywhere (each of them is already slowed on its own).
 */
export const GLOBAL_FREE_NETWORKS = 20;
/** Failed sign-ins per client network per minute, whatever the e-mail. */
export const CLIENT_ATTEMPTS_PER_MINUTE = 20;

/**
 * The client's network: an IPv4 /24 or an IPv6 /56 (what one customer of an ISP is usually given,
 * so one attacker's connection is one network). An attacker rarely owns many of them, and the
 * account's owner is usually on another: a delay earned by failures from one network does not
 * lock out the owner elsewhere.
 */
export function clientNetwork(ip: string): string {
  const family = isIP(ip);
  if (family === 4) return `${ip.split('.').slice(0, 3).join('.')}.0/24`;
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
    if (mapped) return clientNetwork(mapped[1]);
    const [head, tail = ''] = ip.toLowerCase().split('::');
    const h = head ? head.split(':') : [];
    const t = tail ? tail.split(':') : [];
    const groups = ip.includes('::') ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h;
    const fourth = (Number.parseInt(groups[3], 16) & 0xff00).toString(16);
    return `${groups
      .slice(0, 3)
      .map((g) => Number.parseInt(g, 16).toString(16))
      .join(':')}:${fourth}::/56`;
  }
  return ip || 'unknown';
}

/** The delay after `failures` failures: none for the free ones, then 30 s, 60 s, … up to 15 min. */
export function delayAfter(failures: number, free = FREE_FAILURES): number {
  if (failures < free) return 0;
  return Math.min(MAX_DELAY_MS, 30_000 * 2 ** (failures - free));
}
