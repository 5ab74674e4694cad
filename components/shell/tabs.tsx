"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";
import styles from "./tabs.module.css";

export function Tabs({
  items,
  label,
}: {
  /** `prefix`: also current on the pages below it (a list tab and its detail pages). */
  items: { href: string; label: string; prefix?: boolean }[];
  label: string;
}) {
  const pathname = usePathname();
  return (
    <nav className={styles.tabs} aria-label={label}>
      {items.map((t) => (
        <Link
          key={t.href}
          href={t.href}
          aria-current={
            pathname === t.href || (t.prefix && pathname.startsWith(`${t.href}/`))
              ? "page"
              : undefined
          }
        >
          {t.label}
        </Link>
      ))}
    </nav>
  );
}
