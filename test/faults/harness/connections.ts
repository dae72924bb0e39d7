import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * The local ports of a process's TCP connections to the given remote ports (its connections to
 * the receivers), read from /proc: the socket inodes among its file descriptors, then their
 * entries in the kernel's TCP tables. Taken just before a kill -9, it says which POSTs the killed
 * engine sent, however late the receivers' event loop saw them.
 */
export function connectionPortsOf(pid: number, remotePorts: ReadonlySet<number>): Set<number> {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (match) {
          inodes.add(match[1]);
        }
      } catch {
        // closed meanwhile
      }
    }
  } catch {
    return new Set();
  }
  const ports = new Set<number>();
  for (const table of ['tcp', 'tcp6']) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10 || !inodes.has(fields[9])) {
        continue;
      }
      const localPort = parseInt(fields[1].split(':')[1], 16);
      const remotePort = parseInt(fields[2].split(':')[1], 16);
      if (remotePorts.has(remotePort)) {
        ports.add(localPort);
      }
    }
  }
  return ports;
}
