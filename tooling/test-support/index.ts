export { startTcpProxy, type TcpProxy } from './tcp-proxy.ts';
