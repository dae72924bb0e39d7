import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { problems } from './problems/problem-details';

export const PAGE_SIZE_DEFAULT = 20;
export const PAGE_SIZE_MAX = 100;
const LIMIT_RULE = `must be a single whole number from 1 to ${PAGE_SIZE_MAX}`;

export class PageQuery {
  @ApiPropertyOptional({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: LIMIT_RULE })
  @Min(1, { message: LIMIT_RULE })
  @Max(PAGE_SIZE_MAX, { message: LIMIT_RULE })
  limit: number = PAGE_SIZE_DEFAULT;

  @ApiPropertyOptional({ description: 'The next_cursor of the previous page.' })
  @IsOptional()
  @IsString({ message: 'must be a single cursor' })
  cursor?: string;
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/** Cursors are opaque to clients: the id after which the next page starts, base64url-encoded. */
export function encodeCursor(afterId: string): string {
  return Buffer.from(JSON.stringify({ after: afterId }), 'utf8').toString('base64url');
}

export function decodeCursor(
  cursor: string | undefined,
  isValidId: (id: string) => boolean,
): string | null {
  if (cursor === undefined) {
    return null;
  }
  try {
    const { after } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as {
      after?: unknown;
    };
    if (typeof after === 'string' && isValidId(after)) {
      return after;
    }
  } catch {
    // fall through to the same answer as any other unreadable cursor
  }
  throw problems.invalidRequest([{ field: 'cursor', detail: 'is not a cursor this API issued' }]);
}

/** Builds a page from `limit + 1` rows fetched in id order: the extra row only says there is more. */
export function toPage<Row extends { id: string }, T>(
  rows: Row[],
  limit: number,
  view: (row: Row) => T,
): Page<T> {
  const shown = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  return {
    data: shown.map(view),
    has_more: hasMore,
    next_cursor: hasMore ? encodeCursor(shown[shown.length - 1].id) : null,
  };
}
