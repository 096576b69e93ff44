// Offline for real: imported by a test file (or passed to a child with `node --import`), it
// makes every socket connection beyond loopback throw, naming the address, and counts them,
// so a framework that reaches for the network fails its test instead of passing by luck.
// Local pipes and loopback stay allowed.
import net from 'node:net';

export const refused = [];
const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|::1|\[::1\]|::ffff:127(?:\.\d{1,3}){3})$/i;

function target(args) {
  const [first, second] = Array.isArray(args[0]) ? args[0] : args;
  if (first !== null && typeof first === 'object') return first.path !== undefined ? null : String(first.host ?? 'localhost');
  if (typeof first === 'string' && !/^\d+$/.test(first)) return null; // a pipe or socket path
  return typeof second === 'string' ? second : 'localhost';
}

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function guardedConnect(...args) {
  const host = target(args);
  if (host !== null && !LOOPBACK.test(host)) {
    refused.push(host);
    throw new Error(`offline test: a connection to ${host} was attempted`);
  }
  return connect.apply(this, args);
};
