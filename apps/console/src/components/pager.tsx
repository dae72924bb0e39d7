/**
 * Cursor pagination as the API gives it (`has_more`, `next_cursor`): a next page, and back to
 * the first. Never "jump to page n": cursors only go forward, and a count of everything would be
 * a request that grows with the tenant's history.
 */
export function Pager({
  label,
  isFirstPage,
  nextCursor,
  onPage,
}: {
  label: string;
  isFirstPage: boolean;
  nextCursor: string | null;
  onPage: (cursor: string | null) => void;
}) {
  if (isFirstPage && !nextCursor) {
    return null;
  }
  return (
    <nav class="pager" aria-label={`${label} pages`}>
      {!isFirstPage ? (
        <button type="button" class="button-secondary" onClick={() => onPage(null)}>
          First page
        </button>
      ) : null}
      {nextCursor ? (
        <button type="button" class="button-secondary" onClick={() => onPage(nextCursor)}>
          Next page
        </button>
      ) : null}
    </nav>
  );
}
