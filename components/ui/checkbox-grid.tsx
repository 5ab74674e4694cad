"use client";
import type { ReactNode } from "react";
import styles from "./check.module.css";

/**
 * A multi-select as a grid of checkboxes (policy lists such as forbidden step types): controlled,
 * the value kept in option order so saving and comparing are stable.
 */
export function CheckboxGrid<T extends string>({
  options,
  value,
  onChange,
  disabled,
}: {
  options: ReadonlyArray<{ value: T; label: ReactNode }>;
  value: readonly T[];
  onChange: (next: T[]) => void;
  disabled?: boolean;
}) {
  return (
    <div className={styles.grid}>
      {options.map((option) => (
        <label key={option.value} className={styles.check}>
          <input
            type="checkbox"
            checked={value.includes(option.value)}
            disabled={disabled}
            onChange={(e) =>
              onChange(
                options
                  .map((o) => o.value)
                  .filter((v) => (v === option.value ? e.target.checked : value.includes(v))),
              )
            }
          />
          <span>{option.label}</span>
        </label>
      ))}
    </div>
  );
}
