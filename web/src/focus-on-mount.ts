/**
 * A ref that moves focus to the element it is given (a confirm button replacing the button that
 * asked, which is gone). One function for every use: an inline arrow would be a new ref on each
 * render, called again each time, and would pull focus back on every update.
 */
export function focusOnMount(el: HTMLElement | null): void {
  el?.focus();
}
