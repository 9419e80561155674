import { InvalidArgument } from '@svc/kit';
import type { ChatAppATemplateComponent } from '@svc/proto/channels/v1/templates';
import type { PlatformTemplateComponent } from '../../platforms/chat-app-a/templates';
import { componentOf, parameterCount, TEMPLATE_CATEGORIES, type TemplateComponents } from './vocabulary';

const COMPONENT_TYPES = ['HEADER', 'BODY', 'FOOTER', 'BUTTONS'];
const HEADER_FORMATS = ['TEXT', 'IMAGE', 'VIDEO', 'DOCUMENT', 'LOCATION'];
const BUTTON_TYPES = ['QUICK_REPLY', 'URL', 'PHONE_NUMBER', 'COPY_CODE', 'OTP'];
/** The platform's limits: body 1024 characters, header and footer 60, button text 25, 10 buttons. */
const LIMITS = { BODY: 1024, HEADER: 60, FOOTER: 60, button: 25, buttons: 10 } as const;

function invalid(field: string, message: string): never {
  throw new InvalidArgument(`${field}: ${message}`, { field });
}

export function templateName(value: string, field = 'input.name'): string {
  const name = value.trim();
  if (!/^[a-z0-9_]{1,512}$/.test(name)) invalid(field, 'lower-case letters, digits and underscores, 1–512 characters');
  return name;
}

export function templateLanguage(value: string, field = 'input.language'): string {
  const language = value.trim();
  if (!/^[a-z]{2,3}(_[A-Z]{2})?$/.test(language)) invalid(field, 'a language code like en or en_US');
  return language;
}

export function templateCategory(value: string, field = 'input.category'): string {
  if (!(TEMPLATE_CATEGORIES as readonly string[]).includes(value)) {
    invalid(field, `one of ${TEMPLATE_CATEGORIES.join(', ')}`);
  }
  return value;
}

/** Checks components as the platform would take them: one BODY, at most one of each type, parameters numbered 1..n. */
export function templateComponents(
  components: ChatAppATemplateComponent[],
  field = 'input.components',
): TemplateComponents {
  if (components.length === 0) invalid(field, 'needs at least a BODY component');
  const seen = new Set<string>();
  const checked = components.map((component, index) => {
    const at = `${field}.${index}`;
    const type = component.type.trim().toUpperCase();
    if (!COMPONENT_TYPES.includes(type)) invalid(`${at}.type`, `one of ${COMPONENT_TYPES.join(', ')}`);
    if (seen.has(type)) invalid(`${at}.type`, `only one ${type} component`);
    seen.add(type);
    const format = type === 'HEADER' ? (component.format || 'TEXT').toUpperCase() : '';
    if (type === 'HEADER' && !HEADER_FORMATS.includes(format))
      invalid(`${at}.format`, `one of ${HEADER_FORMATS.join(', ')}`);
    const text = component.text.trim();
    if (type === 'BODY' || type === 'FOOTER' || (type === 'HEADER' && format === 'TEXT')) {
      if (!text) invalid(`${at}.text`, 'must not be empty');
      if ([...text].length > LIMITS[type]) invalid(`${at}.text`, `at most ${LIMITS[type]} characters`);
      numberedParameters(text, `${at}.text`, type === 'FOOTER' ? 0 : type === 'HEADER' ? 1 : Infinity);
    }
    if (type === 'BUTTONS') {
      if (component.buttons.length === 0 || component.buttons.length > LIMITS.buttons) {
        invalid(`${at}.buttons`, `1–${LIMITS.buttons} buttons`);
      }
      component.buttons.forEach((button, b) => {
        if (!BUTTON_TYPES.includes(button.type))
          invalid(`${at}.buttons.${b}.type`, `one of ${BUTTON_TYPES.join(', ')}`);
        if (!button.text.trim() || [...button.text].length > LIMITS.button) {
          invalid(`${at}.buttons.${b}.text`, `1–${LIMITS.button} characters`);
        }
        if (button.type === 'URL' && !/^https:\/\/\S+$/.test(button.url))
          invalid(`${at}.buttons.${b}.url`, 'an https URL');
        if (button.type === 'PHONE_NUMBER' && !/^\+\d{6,15}$/.test(button.phoneNumber)) {
          invalid(`${at}.buttons.${b}.phoneNumber`, 'an E.164 number like +15550100');
        }
      });
    }
    return { type, format, text, buttons: type === 'BUTTONS' ? component.buttons : [], examples: component.examples };
  });
  if (!seen.has('BODY')) invalid(field, 'needs a BODY component');
  return checked;
}

/** `{{1}}`…`{{n}}` with no gaps, at most `max` of them. */
function numberedParameters(text: string, field: string, max: number): void {
  const numbers = [...new Set([...text.matchAll(/\{\{\s*(\d+)\s*\}\}/g)].map((m) => Number(m[1])))].sort(
    (a, b) => a - b,
  );
  if (numbers.length > max) invalid(field, max === 0 ? 'takes no parameters' : `at most ${max} parameter`);
  numbers.forEach((n, i) => {
    if (n !== i + 1) invalid(field, 'parameters are numbered {{1}}, {{2}}, … without gaps');
  });
}

export const headerParameterCount = (components: TemplateComponents): number =>
  componentOf(components, 'HEADER')?.format === 'TEXT' ? parameterCount(componentOf(components, 'HEADER')!.text) : 0;
export const bodyParameterCount = (components: TemplateComponents): number =>
  parameterCount(componentOf(components, 'BODY')?.text ?? '');

/** Our components in the platform's shape (examples go where the review wants them). */
export function toPlatformComponents(components: TemplateComponents): PlatformTemplateComponent[] {
  return components.map((component) => {
    const out: PlatformTemplateComponent = { type: component.type };
    if (component.format) out.format = component.format;
    if (component.text) out.text = component.text;
    if (component.type === 'BUTTONS') {
      out.buttons = component.buttons.map((b) => ({
        type: b.type,
        text: b.text,
        ...(b.url ? { url: b.url } : {}),
        ...(b.phoneNumber ? { phone_number: b.phoneNumber } : {}),
      }));
    }
    if (component.examples.length > 0) {
      if (component.type === 'HEADER') out.example = { header_text: component.examples };
      if (component.type === 'BODY') out.example = { body_text: [component.examples] };
    }
    return out;
  });
}

/** The platform's components as ours (sync). */
export function fromPlatformComponents(components: PlatformTemplateComponent[] = []): TemplateComponents {
  return components.map((component) => ({
    type: component.type.toUpperCase(),
    format: component.format?.toUpperCase() ?? '',
    text: component.text ?? '',
    buttons: (component.buttons ?? []).map((b) => ({
      type: b.type.toUpperCase(),
      text: b.text,
      url: b.url ?? '',
      phoneNumber: b.phone_number ?? '',
    })),
    examples: component.example?.header_text ?? component.example?.body_text?.[0] ?? [],
  }));
}
