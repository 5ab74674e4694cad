"use client";

/**
 * After the session names another workspace, load the workflow list with a full navigation.
 * A client `router.push` + `router.refresh()` raced: the push could land the /workflows payload the
 * sidebar link had prefetched under the old session, so the switcher kept showing the old workspace
 * until a reload (seen in the e2e suite). A workspace change resets every cache anyway.
 */
export function enterWorkspace() {
  // A full load on purpose (see above): no client router cache may outlive the old workspace.
  // eslint-disable-next-line @next/next/no-location-assign-relative-destination
  window.location.assign("/workflows");
}
