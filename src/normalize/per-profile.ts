import type { Profile } from "../providers/facts.js";

/**
 * `compute`, remembered per object (a schema, a bundle) and profile, for as long as the object
 * lives: declaring tools to a model, restoring each call and inspecting them read the same work.
 * What it returns must not be changed.
 */
export function perProfile<K extends object, V>(compute: (key: K, profile: Profile) => V): (key: K, profile: Profile) => V {
  const remembered = new WeakMap<K, Map<Profile, V>>();
  return (key, profile) => {
    let byProfile = remembered.get(key);
    if (byProfile === undefined) {
      byProfile = new Map();
      remembered.set(key, byProfile);
    }
    if (!byProfile.has(profile)) byProfile.set(profile, compute(key, profile));
    return byProfile.get(profile) as V;
  };
}
