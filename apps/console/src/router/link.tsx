import type { ComponentChildren } from 'preact';
import { isPlainClick, navigate } from './navigation';

interface LinkProps {
  href: string;
  children: ComponentChildren;
  class?: string;
  'aria-current'?: 'page';
}

/** A real link (opens in a new tab, copies, reads as a link) that navigates without a reload. */
export function Link({ href, children, ...rest }: LinkProps) {
  return (
    <a
      href={href}
      onClick={(event) => {
        if (isPlainClick(event)) {
          event.preventDefault();
          navigate(href);
        }
      }}
      {...rest}
    >
      {children}
    </a>
  );
}
