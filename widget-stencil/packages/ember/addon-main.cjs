'use strict';
// Lets classic (non-Embroider) ember-cli apps consume this v2 addon (the Embroider v2 addon format).
const { addonV1Shim } = require('@embroider/addon-shim');
module.exports = addonV1Shim(__dirname);
