// `<package>/ai-sdk` through `require` (CommonJS), type-checked with typed-usage.ts.
import aiSdk = require('earlyexit/ai-sdk');

const stop: aiSdk.EarlyexitStopCondition = aiSdk.earlyexitStop({ quality: (step) => step.text.length / 100 });
void stop.loop.best;
