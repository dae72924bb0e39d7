/**
 * Keeps the last lines a child process printed. Its output is only logged at debug level, so
 * when the child fails these lines go into the error the person actually sees.
 */
export class RecentOutput {
  private readonly lines: string[] = [];

  constructor(private readonly limit = 15) {}

  add(chunk: string): void {
    for (const line of chunk.split(/\r?\n/)) {
      if (line.trim().length > 0) {
        this.lines.push(line);
      }
    }
    this.lines.splice(0, Math.max(0, this.lines.length - this.limit));
  }

  toString(): string {
    return this.lines.map((line) => `  | ${line}`).join('\n');
  }
}
