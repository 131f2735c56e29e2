export { startTcpProxy, type TcpProxy } from './tcp-proxy.ts';
export { canMountTmpfs, fullTmpfs } from './full-disk.ts';
export { bundleEntry, nodeArgsFor } from './ts-entry.ts';
