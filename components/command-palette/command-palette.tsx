"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Command } from "cmdk";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useRef, useState } from "react";
import { useDebounced } from "@/components/ui/use-debounced";
import { useTRPC } from "@/lib/trpc/client";
import { buildGroups, noMatchMessage, type PaletteItem } from "./palette-items";
import styles from "./command-palette.module.css";

/**
 * Ctrl+K / Cmd+K: jump to a workflow or run by name or id (searched on the server) or run one of
 * the app's actions. cmdk supplies the combobox/listbox semantics and arrow/Enter handling inside
 * a native modal <dialog>, which traps focus, closes on Escape and gives focus back to where it
 * was. (cmdk's own Command.Dialog does not: with no Radix Dialog.Trigger, focus fell to <body>.)
 */
export function CommandPalette({
  open,
  onOpenChange,
  onSignOut,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onSignOut: () => void;
}) {
  const router = useRouter();
  const trpc = useTRPC();
  const [query, setQuery] = useState("");
  const q = useDebounced(query.trim(), 150);
  const search = useQuery({
    ...trpc.search.global.queryOptions({ q }),
    enabled: open && q.length > 0,
    placeholderData: keepPreviousData,
  });
  // Results belong to the text typed so far only once the debounce and the fetch caught up.
  const settled = q === query.trim() && !search.isFetching && !search.isPlaceholderData;
  const results = query.trim() && q ? search.data : undefined;
  const groups = useMemo(() => buildGroups(query, results), [query, results]);

  // Enter always takes the best match: the first item whenever the list changes.
  const [value, setValue] = useState("");
  const [listed, setListed] = useState("");
  const keys = groups.flatMap((g) => g.items.map((i) => i.key)).join("\n");
  if (keys !== listed) {
    setListed(keys);
    setValue(groups[0]?.items[0]?.key ?? "");
  }

  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (open && !d.open) {
      d.showModal();
      // showModal focuses the dialog itself; React's autoFocus ran while it was still hidden.
      d.querySelector<HTMLInputElement>("[cmdk-input]")?.focus();
    }
    if (!open && d.open) d.close();
  }, [open]);

  function close() {
    onOpenChange(false);
    setQuery("");
    setListed(""); // reopening starts on the first item again
  }

  function choose(item: PaletteItem) {
    close();
    if ("href" in item) router.push(item.href);
    else onSignOut();
  }

  const noMatch =
    query.trim().length > 0 &&
    settled &&
    search.data !== undefined &&
    search.data.workflows.length === 0 &&
    search.data.runs.length === 0;

  return (
    <dialog
      ref={dialog}
      className={styles.dialog}
      aria-label="Command palette"
      onClose={close}
      // A click on the backdrop (the dialog element itself, outside the panel) closes it.
      onClick={(e) => {
        if (e.target === e.currentTarget) close();
      }}
    >
      {open ? (
        <Command
          label="Command palette"
          shouldFilter={false}
          value={value}
          onValueChange={setValue}
          loop
          className={styles.command}
        >
          <Command.Input
            className={styles.input}
            value={query}
            onValueChange={setQuery}
            placeholder="Jump to a workflow or run, or type a command…"
          />
          <Command.List className={styles.list}>
            {query.trim() && !settled ? (
              <Command.Loading className={styles.note}>Searching…</Command.Loading>
            ) : null}
            {noMatch ? (
              <div className={styles.note} role="status">
                {noMatchMessage(query)}
              </div>
            ) : null}
            {search.isError && settled ? (
              <div className={styles.note} role="alert">
                Search failed: {search.error.message}
              </div>
            ) : null}
            {groups.map((g) => (
              <Command.Group key={g.heading} heading={g.heading} className={styles.group}>
                {g.items.map((item) => (
                  <Command.Item
                    key={item.key}
                    value={item.key}
                    onSelect={() => choose(item)}
                    className={styles.item}
                  >
                    <span className={styles.label}>{item.label}</span>
                    {item.hint ? <span className={styles.hint}>{item.hint}</span> : null}
                  </Command.Item>
                ))}
              </Command.Group>
            ))}
          </Command.List>
        </Command>
      ) : null}
    </dialog>
  );
}
