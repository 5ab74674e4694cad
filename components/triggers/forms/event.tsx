"use client";
import { useWatch } from "react-hook-form";
import { FormText } from "@/components/forms/form";
import { SYSTEM_EVENT_NAMES } from "@/lib/schemas/triggers";
import type { InputSpec } from "@/lib/workflow/definition";
import { TestEventPanel } from "../test-event-panel";
import { MappingEditor } from "./mapping-editor";
import type { TriggerControl } from "./values";

/** Event settings: the name pattern, an optional filter condition and the input mapping. */
export function EventFields({
  control,
  isCreate,
  inputs,
}: {
  control: TriggerControl;
  isCreate: boolean;
  inputs?: Record<string, InputSpec>;
}) {
  const pattern = useWatch({ control, name: "event" });
  return (
    <>
      <FormText
        control={control}
        name="event"
        label="Event pattern"
        hint={`An event name such as order.paid, a prefix pattern like order.*, or a system event: ${SYSTEM_EVENT_NAMES.join(", ")}`}
        spellCheck={false}
      />
      <FormText
        control={control}
        name="filter"
        label="Filter (optional JSON condition)"
        multiline
        spellCheck={false}
        placeholder={'{ "ref": "trigger.data.amount", "gt": 100 }'}
        hint="Conditions over trigger.name, trigger.data.… and trigger.source.…"
      />
      <MappingEditor
        control={control}
        inputs={inputs}
        suggestSource={(name) => `$.data.${name}`}
        sourceHint="Map event data into run inputs with $.… paths over the event data."
      />
      {isCreate ? null : <TestEventPanel pattern={pattern} compact />}
    </>
  );
}
