// Checks Hoard's Kubernetes manifests offline, as `kubectl apply
// --validate=strict` would before anything reaches a cluster, and then
// that their parts fit together:
// - every object against the Kubernetes API schemas (kubernetes-models),
//   with no field the schema does not know (a misspelt "readinesProbe" is
//   an error, not a silent no-op);
// - the replicas: more than one, every HOARD_SERVE_ variable a flag of
//   `hoard serve` (the real program is asked), the database a postgresql://
//   address whose host and port are a Service of the file, the files the
//   variables name inside mounted secrets, gRPC probes on a declared port;
// - every Service selecting the pods of a workload of the file, by ports
//   those pods declare; a headless Service listing every replica for gRPC
//   round_robin; the StatefulSet's serviceName a headless Service.
// The checks are run on broken copies too, which they must refuse.
//
//   node tests/kubernetes/validate.js build/hoard [deploy/kubernetes/*.yaml]

"use strict";
const fs = require("fs");
const path = require("path");
const { execFileSync } = require("child_process");
const YAML = require("yaml");
const { Service } = require("kubernetes-models/v1");
const { Deployment, StatefulSet } = require("kubernetes-models/apps/v1");

// Each kind: its model (the schema check) and its schema's own validator
// (which the unknown-field check watches read the object).
const schemas = (name) => require(path.join(
  path.dirname(require.resolve("kubernetes-models/package.json")), "_schemas", `${name}.js`)).validate;
const MODELS = {
  "v1/Service": [Service, schemas("IoK8sApiCoreV1Service")],
  "apps/v1/Deployment": [Deployment, schemas("IoK8sApiAppsV1Deployment")],
  "apps/v1/StatefulSet": [StatefulSet, schemas("IoK8sApiAppsV1StatefulSet")],
};

const hoard = process.argv[2];
const repo = path.resolve(__dirname, "..", "..");
const files = process.argv.length > 3 ? process.argv.slice(3)
  : fs.readdirSync(path.join(repo, "deploy", "kubernetes"))
      .filter((f) => f.endsWith(".yaml")).map((f) => path.join(repo, "deploy", "kubernetes", f));

let passed = 0, failed = 0;
function check(name, ok, detail) {
  if (ok) { passed++; console.log(`ok   ${name}`); return; }
  failed++;
  console.log(`FAIL ${name}`);
  if (detail) for (const line of String(detail).split("\n").slice(0, 20)) console.log(`     ${line}`);
}

// The fields of `object` the schema's validator never looked at: a Proxy
// records each property it reads (a map's keys count as read when it lists
// them).
function unknownFields(object, validate) {
  const seen = new WeakMap();
  const wrap = (value) => {
    if (value === null || typeof value !== "object") return value;
    const keys = new Set();
    const proxy = new Proxy(value, {
      get(target, key) { if (typeof key === "string") keys.add(key); return wrap(target[key]); },
      ownKeys(target) { for (const k of Reflect.ownKeys(target)) keys.add(k); return Reflect.ownKeys(target); },
    });
    seen.set(value, keys);
    return proxy;
  };
  validate(wrap(object));
  const unknown = [];
  const walk = (value, where) => {
    if (value === null || typeof value !== "object") return;
    const keys = seen.get(value) || new Set();
    for (const key of Object.keys(value)) {
      if (!keys.has(key)) unknown.push(`${where}/${key}`);
      else walk(value[key], `${where}/${key}`);
    }
  };
  walk(object, "");
  return unknown;
}

// Schema errors and unknown fields of one object ([] if none).
function schemaErrors(doc) {
  const kind = MODELS[`${doc.apiVersion}/${doc.kind}`];
  if (!kind) return [`${doc.apiVersion} ${doc.kind} is not a kind these manifests use`];
  const [Model, validate] = kind;
  const errors = [];
  try {
    new Model(doc).validate();
  } catch (error) {
    errors.push(error.message);
  }
  for (const field of unknownFields(doc, validate)) errors.push(`unknown field ${field}`);
  return errors;
}

function serveFlags() {
  const help = execFileSync(hoard, ["serve", "--help"], { encoding: "utf8" });
  return new Set([...help.matchAll(/^\s+--([a-z-]+)/gm)].map((m) => m[1]));
}

function podSpec(doc) { return doc.spec && doc.spec.template && doc.spec.template.spec; }
function podLabels(doc) { return (doc.spec.template.metadata || {}).labels || {}; }
function selects(selector, labels) {
  return Object.entries(selector || {}).every(([k, v]) => labels[k] === v) &&
    Object.keys(selector || {}).length > 0;
}

// The problems of a set of objects as a whole ([] if none).
function fitErrors(docs, flags) {
  const errors = [];
  const workloads = docs.filter((d) => d.kind === "Deployment" || d.kind === "StatefulSet");
  const services = docs.filter((d) => d.kind === "Service");
  for (const w of workloads) {
    const spec = podSpec(w);
    for (const c of spec.containers) {
      const env = Object.fromEntries((c.env || []).map((e) => [e.name, e.value]));
      const ports = (c.ports || []).map((p) => p.containerPort);
      for (const probe of [c.readinessProbe, c.livenessProbe]) {
        if (probe && probe.grpc && !ports.includes(probe.grpc.port)) {
          errors.push(`${w.metadata.name}: a gRPC probe on port ${probe.grpc.port}, not declared`);
        }
      }
      // A StatefulSet's claims are volumes of its pods too.
      const volumes = [...(spec.volumes || []),
                       ...(w.spec.volumeClaimTemplates || []).map((t) => ({ name: t.metadata.name, claim: t }))];
      const mounts = (c.volumeMounts || []).map((m) => ({
        ...m, volume: volumes.find((v) => v.name === m.name) }));
      for (const m of mounts) {
        if (!m.volume) errors.push(`${w.metadata.name}: mount ${m.name} has no volume`);
      }
      const inSecret = (file) => mounts.some((m) => m.volume && m.volume.secret &&
                                               file.startsWith(m.mountPath + "/"));
      for (const [name, value] of Object.entries(env)) {
        if (name.endsWith("_FILE") && !inSecret(value)) {
          errors.push(`${w.metadata.name}: ${name}=${value} is in no mounted secret`);
        }
      }
      if (c.image && c.image.startsWith("hoard")) {
        if (!(w.spec.replicas >= 2)) errors.push(`${w.metadata.name}: fewer than two replicas`);
        for (const name of Object.keys(env).filter((n) => n.startsWith("HOARD_SERVE_"))) {
          const flag = name.slice("HOARD_SERVE_".length).toLowerCase().replace(/_/g, "-");
          if (!flags.has(flag)) errors.push(`${w.metadata.name}: ${name} is no flag of hoard serve`);
        }
        const db = /^postgresql:\/\/[^@/]*@([^:/]+):(\d+)\//.exec(env.HOARD_SERVE_DB || "");
        const target = db && services.find((s) => s.metadata.name === db[1]);
        if (!db) errors.push(`${w.metadata.name}: HOARD_SERVE_DB is no postgresql://user@host:port/ address`);
        else if (!target || !target.spec.ports.some((p) => p.port === Number(db[2]))) {
          errors.push(`${w.metadata.name}: its database ${db[1]}:${db[2]} is no Service port of the file`);
        }
      }
    }
  }
  for (const s of services) {
    const pods = workloads.filter((w) => selects(s.spec.selector, podLabels(w)));
    if (pods.length === 0) { errors.push(`Service ${s.metadata.name} selects no workload's pods`); continue; }
    for (const p of s.spec.ports) {
      const named = pods.some((w) => podSpec(w).containers.some((c) => (c.ports || []).some(
        (cp) => cp.name === p.targetPort || cp.containerPort === (p.targetPort || p.port))));
      if (!named) errors.push(`Service ${s.metadata.name}: port ${p.name} targets no container port`);
    }
  }
  const replicas = workloads.find((w) => w.kind === "Deployment");
  if (!replicas || !services.some((s) => s.spec.clusterIP === "None" &&
                                          selects(s.spec.selector, podLabels(replicas)))) {
    errors.push("no headless Service lists the replicas (for gRPC round_robin over DNS)");
  }
  for (const set of workloads.filter((w) => w.kind === "StatefulSet")) {
    if (!services.some((s) => s.metadata.name === set.spec.serviceName && s.spec.clusterIP === "None")) {
      errors.push(`StatefulSet ${set.metadata.name}: its serviceName is no headless Service`);
    }
  }
  return errors;
}

const flags = serveFlags();
const all = [];
for (const file of files) {
  // As Kubernetes reads YAML (1.1: 0444 is octal).
  const docs = YAML.parseAllDocuments(fs.readFileSync(file, "utf8"), { version: "1.1" })
    .map((d) => d.toJS()).filter((d) => d);
  for (const doc of docs) {
    const errors = schemaErrors(doc);
    check(`${path.basename(file)}: ${doc.kind} ${doc.metadata && doc.metadata.name} fits the ` +
          `Kubernetes schema, with no unknown field`, errors.length === 0, errors.join("\n"));
  }
  all.push(...docs);
}
const kinds = all.map((d) => d.kind);
check("a Deployment of the server, a PostgreSQL StatefulSet and their Services",
      kinds.includes("Deployment") && kinds.includes("StatefulSet") && kinds.includes("Service"), kinds);
const errors = fitErrors(all, flags);
check("the parts fit together (database, secrets, probes, Services, round_robin)",
      errors.length === 0, errors.join("\n"));

// Broken copies: each must be refused.
const copy = () => JSON.parse(JSON.stringify(all));
const deployment = (docs) => docs.find((d) => d.kind === "Deployment");
const broken = [
  ["replicas as text", (d) => { deployment(d).spec.replicas = "three"; }, "schema"],
  ["a misspelt probe", (d) => {
    const c = podSpec(deployment(d)).containers[0];
    c.readinesProbe = c.readinessProbe; delete c.readinessProbe; }, "schema"],
  ["a flag hoard serve lacks", (d) => {
    podSpec(deployment(d)).containers[0].env.push({ name: "HOARD_SERVE_DATABASE", value: "x" }); }, "fit"],
  ["the database on no Service", (d) => {
    const e = podSpec(deployment(d)).containers[0].env.find((v) => v.name === "HOARD_SERVE_DB");
    e.value = e.value.replace(/@[^:]+:/, "@elsewhere:"); }, "fit"],
  ["a probe on an undeclared port", (d) => {
    podSpec(deployment(d)).containers[0].readinessProbe.grpc.port = 50052; }, "fit"],
  ["no headless Service", (d) => {
    for (const s of d) if (s.kind === "Service" && s.metadata.name !== "hoard-postgres") delete s.spec.clusterIP; }, "fit"],
];
for (const [name, breakIt, where] of broken) {
  const docs = copy();
  breakIt(docs);
  const found = where === "schema" ? docs.flatMap(schemaErrors) : fitErrors(docs, flags);
  check(`a copy with ${name} is refused`, found.length > 0, "nothing was found wrong");
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
