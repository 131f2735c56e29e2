/** A MySQL-protocol target URL: connection options, whether it is local, which server a version string names. */
import { ENGINE_FACTS, engineOfScheme, schemesOfProtocol, type Engine } from '@tunelab/contracts';
import { mysqlPasswordFromEnv } from '../../config.ts';

type ConnectOptions = { host: string; port: number; user: string; password?: string; database?: string };

export function parseMysqlTarget(target: string): ConnectOptions {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new Error(`target is not a URL: expected mysql://USER[:PASSWORD]@HOST[:PORT]/DATABASE`);
  }
  const engine = engineOfScheme(url.protocol);
  if (engine === null || ENGINE_FACTS[engine].protocol !== 'mysql')
    throw new Error(`target protocol ${url.protocol} is not ${schemesOfProtocol('mysql').join(' or ')}`);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  const password = url.password ? decodeURIComponent(url.password) : mysqlPasswordFromEnv();
  return {
    host: decodeURIComponent(url.hostname) || '127.0.0.1',
    port: url.port ? Number(url.port) : ENGINE_FACTS[engine].defaultPort,
    user: decodeURIComponent(url.username) || 'root',
    ...(password !== undefined ? { password } : {}),
    ...(database ? { database } : {}),
  };
}

export function isLocalMysqlTarget(target: string): boolean {
  try {
    const host = new URL(target).hostname;
    return ['', '127.0.0.1', 'localhost', '::1', '[::1]'].includes(host);
  } catch {
    return false;
  }
}

export function flavourOf(version: string): Engine {
  return /mariadb/i.test(version) ? 'mariadb' : 'mysql';
}
