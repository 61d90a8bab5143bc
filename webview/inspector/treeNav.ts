// Keyboard and pointer behaviour of an ARIA tree (role=tree / treeitem / group): one tab stop (roving
// tabindex), arrows move and open or close groups, Home/End jump, Enter activates, and selection follows
// focus so the details beside the tree always describe the focused item.

export interface TreeBehaviour {
  /** An item got focus (by keyboard or pointer): select it. */
  select(item: HTMLElement): void;
  /** Enter, or a double click. */
  activate(item: HTMLElement): void;
  /** A group was opened or closed. */
  toggled(group: HTMLElement, expanded: boolean): void;
  /** Other keys (F2, Delete...); return true when handled. */
  key?(item: HTMLElement, event: KeyboardEvent): boolean;
}

export function visibleItems(tree: HTMLElement): HTMLElement[] {
  return Array.from(tree.querySelectorAll<HTMLElement>('[role="treeitem"]')).filter(
    (el) => !el.parentElement?.closest('[role="group"][hidden]'),
  );
}

export function setExpanded(group: HTMLElement, expanded: boolean): void {
  group.setAttribute('aria-expanded', String(expanded));
  const children = group.querySelector<HTMLElement>(':scope > [role="group"]');
  if (children) children.hidden = !expanded;
  const chevron = group.querySelector<HTMLElement>(':scope > .tree-row > .tree-chevron');
  if (chevron) chevron.className = `tree-chevron codicon codicon-chevron-${expanded ? 'down' : 'right'}`;
}

export function focusItem(tree: HTMLElement, item: HTMLElement, behaviour: TreeBehaviour): void {
  for (const el of Array.from(tree.querySelectorAll<HTMLElement>('[role="treeitem"][tabindex="0"]'))) el.tabIndex = -1;
  for (const el of Array.from(tree.querySelectorAll<HTMLElement>('[aria-selected="true"]')))
    el.setAttribute('aria-selected', 'false');
  item.tabIndex = 0;
  item.setAttribute('aria-selected', 'true');
  item.focus({ preventScroll: false });
  behaviour.select(item);
}

export function attachTree(tree: HTMLElement, behaviour: TreeBehaviour): void {
  tree.addEventListener('keydown', (event: KeyboardEvent) => {
    const item = (event.target as HTMLElement).closest<HTMLElement>('[role="treeitem"]');
    if (!item || !tree.contains(item) || event.target !== item) return;
    const items = visibleItems(tree);
    const at = items.indexOf(item);
    const expanded = item.getAttribute('aria-expanded');
    let next: HTMLElement | undefined;
    switch (event.key) {
      case 'ArrowDown':
        next = items[at + 1];
        break;
      case 'ArrowUp':
        next = items[at - 1];
        break;
      case 'Home':
        next = items[0];
        break;
      case 'End':
        next = items[items.length - 1];
        break;
      case 'ArrowRight':
        if (expanded === 'false') {
          setExpanded(item, true);
          behaviour.toggled(item, true);
        } else if (expanded === 'true') {
          next = item.querySelector<HTMLElement>(':scope > [role="group"] [role="treeitem"]') ?? undefined;
        }
        break;
      case 'ArrowLeft':
        if (expanded === 'true') {
          setExpanded(item, false);
          behaviour.toggled(item, false);
        } else {
          next = item.parentElement?.closest<HTMLElement>('[role="treeitem"]') ?? undefined;
        }
        break;
      case 'Enter':
        if (expanded !== null) {
          setExpanded(item, expanded !== 'true');
          behaviour.toggled(item, expanded !== 'true');
        } else {
          behaviour.activate(item);
        }
        break;
      default:
        if (!behaviour.key?.(item, event)) return;
    }
    event.preventDefault();
    if (next) focusItem(tree, next, behaviour);
  });
  tree.addEventListener('click', (event) => {
    const item = (event.target as HTMLElement).closest<HTMLElement>('[role="treeitem"]');
    if (!item || !tree.contains(item)) return;
    // A click on a group's own row opens or closes it; on an entry it selects.
    const row = (event.target as HTMLElement).closest('.tree-row');
    if (row && row.parentElement === item && item.hasAttribute('aria-expanded')) {
      const open = item.getAttribute('aria-expanded') !== 'true';
      setExpanded(item, open);
      behaviour.toggled(item, open);
    }
    focusItem(tree, item, behaviour);
  });
  tree.addEventListener('dblclick', (event) => {
    const item = (event.target as HTMLElement).closest<HTMLElement>('[role="treeitem"]');
    if (item && !item.hasAttribute('aria-expanded')) behaviour.activate(item);
  });
}
