#!/usr/bin/env node
// Validates every Kubernetes object in deploy/ against the Kubernetes API's
// OpenAPI schemas (kubernetes-models: generated from Kubernetes 1.27), offline.
// A YAML parse is not enough: a misspelt field, a string where the schema
// wants an integer or a missing required field must fail here, not at
// `kubectl apply` time.
//
//   node validate.js [DIR]        validate DIR (default: deploy/, this folder's parent)
//   node validate.js --self-test  also prove that broken copies of the
//                                 manifests are refused
//
// Besides the schemas it checks what ties the files together: the
// kustomization lists exactly the manifests in the folder, and the names the
// Deployment refers to (ConfigMap, Secret, Services' selectors, the HPA's and
// PDB's targets) exist.
'use strict';

const fs = require('fs');
const path = require('path');
const yaml = require('js-yaml');

// The class of an object from its apiVersion and kind, e.g. apps/v1 Deployment
// -> require('kubernetes-models/apps/v1').Deployment. Unknown kinds fail.
function modelClass(apiVersion, kind) {
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') {
    throw new Error('apiVersion and kind must be strings');
  }
  if (!/^([a-z0-9.-]+\/)?v[0-9a-z]+$/.test(apiVersion)) {
    throw new Error(`malformed apiVersion "${apiVersion}"`);
  }
  let mod;
  try {
    mod = require(`kubernetes-models/${apiVersion}`);
  } catch (e) {
    throw new Error(`apiVersion "${apiVersion}" is not a Kubernetes API group/version`);
  }
  if (typeof mod[kind] !== 'function' || mod[kind].kind !== kind) {
    throw new Error(`kind "${kind}" does not exist in ${apiVersion}`);
  }
  return mod[kind];
}

// The schemas' generated validators accept fields they do not know (the
// OpenAPI documents set no additionalProperties: false), but the API server
// drops them silently, so a misspelt optional field would be lost without a
// word. The validators read every field their schema defines (and every key
// of a map), so validating through a proxy that records what was read finds
// the fields no schema defines: those are unknown.
function validateStrict(Model, obj) {
  const read = new Map();  // object -> set of keys the validator read
  const wrap = (value) => {
    if (value === null || typeof value !== 'object') return value;
    if (!read.has(value)) read.set(value, new Set());
    const keys = read.get(value);
    return new Proxy(value, {
      get(target, key, receiver) {
        if (typeof key === 'string') keys.add(key);
        return wrap(Reflect.get(target, key, receiver));
      },
    });
  };
  // Model.validate runs the schema's validator on `this`.
  Model.prototype.validate.call(wrap(obj));
  const unknown = [];
  const walk = (value, where) => {
    if (value === null || typeof value !== 'object') return;
    const keys = read.get(value) || new Set();
    for (const [k, v] of Object.entries(value)) {
      const at = Array.isArray(value) ? `${where}[${k}]` : `${where}.${k}`;
      if (!Array.isArray(value) && !keys.has(k)) unknown.push(at.slice(1));
      else walk(v, at);
    }
  };
  walk(obj, '');
  if (unknown.length > 0) {
    throw new Error(`unknown field(s), not in the schema: ${unknown.join(', ')}`);
  }
}

// Returns a list of error strings for one folder of manifests.
function validateDir(dir) {
  const errors = [];
  const objects = [];  // {file, obj}
  const files = fs.readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort();
  let kustomization = null;
  for (const file of files) {
    let docs;
    try {
      docs = yaml.loadAll(fs.readFileSync(path.join(dir, file), 'utf8'));
    } catch (e) {
      errors.push(`${file}: YAML: ${e.message}`);
      continue;
    }
    docs = docs.filter((d) => d !== null && d !== undefined);
    if (docs.length === 0) errors.push(`${file}: no object`);
    if (file === 'kustomization.yaml') {
      kustomization = docs[0];
      continue;
    }
    if (docs.length > 1) errors.push(`${file}: ${docs.length} objects (one object per file)`);
    for (const obj of docs) {
      const where = `${file}: ${obj && obj.kind}/${obj && obj.metadata && obj.metadata.name}`;
      try {
        const Model = modelClass(obj.apiVersion, obj.kind);
        validateStrict(Model, obj);
        objects.push({file, obj});
      } catch (e) {
        errors.push(`${where}: ${e.message}`);
      }
    }
  }
  errors.push(...checkKustomization(kustomization, files));
  errors.push(...checkReferences(objects));
  return {errors, count: objects.length};
}

function checkKustomization(k, files) {
  const errors = [];
  if (!k) return ['kustomization.yaml: missing'];
  if (k.apiVersion !== 'kustomize.config.k8s.io/v1beta1' || k.kind !== 'Kustomization') {
    errors.push('kustomization.yaml: not a kustomize.config.k8s.io/v1beta1 Kustomization');
  }
  const listed = new Set(k.resources || []);
  for (const r of listed) {
    if (!files.includes(r)) errors.push(`kustomization.yaml: lists ${r}, which does not exist`);
  }
  for (const f of files) {
    if (f !== 'kustomization.yaml' && !listed.has(f)) {
      errors.push(`kustomization.yaml: does not list ${f}`);
    }
  }
  return errors;
}

// Names that must resolve between the objects.
function checkReferences(objects) {
  const errors = [];
  const byKind = (kind) => objects.filter((o) => o.obj.kind === kind).map((o) => o.obj);
  const names = (kind) => new Set(byKind(kind).map((o) => o.metadata.name));
  const deployments = byKind('Deployment');
  const podLabelSets = deployments.map((d) => (d.spec.template.metadata || {}).labels || {});
  const matches = (selector) =>
    podLabelSets.some((labels) =>
      Object.entries(selector || {}).every(([k, v]) => labels[k] === v));

  for (const d of deployments) {
    const spec = d.spec.template.spec;
    for (const v of spec.volumes || []) {
      if (v.configMap && !names('ConfigMap').has(v.configMap.name)) {
        errors.push(`Deployment/${d.metadata.name}: volume ${v.name} names ConfigMap ${v.configMap.name}, which is not defined`);
      }
      if (v.secret && !names('Secret').has(v.secret.secretName)) {
        errors.push(`Deployment/${d.metadata.name}: volume ${v.name} names Secret ${v.secret.secretName}, which is not defined`);
      }
    }
    const volumeNames = new Set((spec.volumes || []).map((v) => v.name));
    for (const c of spec.containers) {
      for (const m of c.volumeMounts || []) {
        if (!volumeNames.has(m.name)) {
          errors.push(`Deployment/${d.metadata.name}: container ${c.name} mounts unknown volume ${m.name}`);
        }
      }
    }
    if (!matches(d.spec.selector.matchLabels)) {
      errors.push(`Deployment/${d.metadata.name}: selector does not match its pod labels`);
    }
  }
  errors.push(...checkApiServerRules(objects));
  for (const s of byKind('Service')) {
    if (!matches(s.spec.selector)) {
      errors.push(`Service/${s.metadata.name}: selector matches no Deployment's pods`);
    }
  }
  for (const p of byKind('PodDisruptionBudget')) {
    if (!matches(p.spec.selector.matchLabels)) {
      errors.push(`PodDisruptionBudget/${p.metadata.name}: selector matches no Deployment's pods`);
    }
  }
  for (const h of byKind('HorizontalPodAutoscaler')) {
    const ref = h.spec.scaleTargetRef;
    if (ref.kind !== 'Deployment' || !names('Deployment').has(ref.name)) {
      errors.push(`HorizontalPodAutoscaler/${h.metadata.name}: scaleTargetRef ${ref.kind}/${ref.name} is not defined`);
    }
  }
  return errors;
}

// A few rules the API server enforces in code rather than in the OpenAPI
// schema (so the schema check above cannot see them).
function checkApiServerRules(objects) {
  const errors = [];
  const portOk = (p) => Number.isInteger(p) && p >= 1 && p <= 65535;
  const hpaTypes = {Object: 'object', Pods: 'pods', Resource: 'resource',
                    ContainerResource: 'containerResource', External: 'external'};
  for (const {obj} of objects) {
    const where = `${obj.kind}/${obj.metadata.name}`;
    if (obj.kind === 'Deployment') {
      for (const c of obj.spec.template.spec.containers) {
        for (const p of c.ports || []) {
          if (!portOk(p.containerPort)) errors.push(`${where}: containerPort ${p.containerPort} is not in 1-65535`);
        }
      }
    }
    if (obj.kind === 'Service') {
      for (const p of obj.spec.ports || []) {
        if (!portOk(p.port)) errors.push(`${where}: port ${p.port} is not in 1-65535`);
      }
    }
    if (obj.kind === 'HorizontalPodAutoscaler') {
      for (const m of obj.spec.metrics || []) {
        const member = hpaTypes[m.type];
        if (!member) errors.push(`${where}: metric type "${m.type}" is not one of ${Object.keys(hpaTypes).join(', ')}`);
        else if (!m[member]) errors.push(`${where}: metric of type ${m.type} has no "${member}" field`);
      }
    }
  }
  return errors;
}

// Breaks copies of the real manifests in ways a schema must catch, one fault
// per copy, and expects every one to be refused; the untouched copy must pass.
function selfTest(dir) {
  const os = require('os');
  const faults = [
    ['a misspelt field', 'deployment.yaml', (o) => { o.spec.template.spec.containers[0].imagePullPolice = 'Always'; }],
    ['a string where an integer belongs', 'deployment.yaml', (o) => { o.spec.template.spec.terminationGracePeriodSeconds = 'thirty'; }],
    ['a missing required field', 'deployment.yaml', (o) => { delete o.spec.selector; }],
    ['a container port out of range', 'deployment.yaml', (o) => { o.spec.template.spec.containers[0].ports[0].containerPort = 70000; }],
    ['an unknown HPA metric type', 'hpa.yaml', (o) => { o.spec.metrics[0].type = 'Queue'; }],
    ['an HPA without maxReplicas', 'hpa.yaml', (o) => { delete o.spec.maxReplicas; }],
    ['a Service port as a string', 'service.yaml', (o) => { o.spec.ports[0].port = 'grpc'; }],
    ['an unknown kind', 'pdb.yaml', (o) => { o.kind = 'PodDisruptionBudgets'; }],
    ['a ConfigMap value that is not a string', 'configmap.yaml', (o) => { o.data['server.flags'] = 42; }],
    ['a Secret the Deployment does not find', 'secret-tls.yaml', (o) => { o.metadata.name = 'other'; }],
  ];
  const baseline = validateDir(dir);
  if (baseline.errors.length > 0) {
    console.error('self-test: the real manifests do not pass:\n  ' + baseline.errors.join('\n  '));
    return false;
  }
  let ok = true;
  for (const [what, file, breakIt] of faults) {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rgfx-deploy-'));
    try {
      for (const f of fs.readdirSync(dir).filter((x) => /\.ya?ml$/.test(x))) {
        fs.copyFileSync(path.join(dir, f), path.join(tmp, f));
      }
      const obj = yaml.load(fs.readFileSync(path.join(dir, file), 'utf8'));
      breakIt(obj);
      fs.writeFileSync(path.join(tmp, file), yaml.dump(obj));
      const result = validateDir(tmp);
      if (result.errors.length === 0) {
        console.error(`self-test FAILED: ${what} (${file}) was accepted`);
        ok = false;
      } else {
        console.log(`self-test: ${what} refused: ${result.errors[0]}`);
      }
    } finally {
      fs.rmSync(tmp, {recursive: true, force: true});
    }
  }
  return ok;
}

function main() {
  const args = process.argv.slice(2);
  const self = args.includes('--self-test');
  const dir = args.find((a) => !a.startsWith('--')) || path.join(__dirname, '..');
  const {errors, count} = validateDir(dir);
  if (errors.length > 0) {
    console.error(`deploy: ${errors.length} error(s):\n  ` + errors.join('\n  '));
    process.exit(1);
  }
  console.log(`deploy: ${count} objects valid against the Kubernetes 1.27 API schemas`);
  if (self && !selfTest(dir)) process.exit(1);
}

main();
