import Component from '@glimmer/component';
import { tracked } from '@glimmer/tracking';
import { on } from '@ember/modifier';
import { VERSION } from '@ember/version';
import { modifier } from 'ember-modifier';
import { defineSvcWidget, svcIdentify } from '@svc-inbox/widget-ember';

defineSvcWidget();

// The page's query string says which integration and backend to use, and who the visitor is (the browser tests set it).
const query = new URLSearchParams(location.search);

export default class WidgetDemo extends Component {
  @tracked events = [];
  @tracked renders = 0;
  publicKey = query.get('publicKey') ?? undefined;
  api = query.get('api') ?? undefined;
  widget = null;

  /** Deliberately a new object on every render: equal by value, it must not identify the visitor again. */
  get user() {
    void this.renders;
    const json = query.get('user');
    return json ? JSON.parse(json) : undefined;
  }

  capture = modifier((element) => {
    this.widget = element;
  });
  log = (entry) => (this.events = [...this.events, entry]);
  resized = ({ detail }) => this.log(`resize ${detail.width}x${detail.height}`);
  opened = () => this.log('open');
  closed = () => this.log('close');
  open = () => this.widget.open();
  close = () => this.widget.close();
  rerender = () => this.renders++;

  <template>
    <main>
      <h1>Ember <span id="framework-version">{{VERSION}}</span> + @svc-inbox/widget-ember</h1>
      <button id="open-chat" type="button" {{on "click" this.open}}>Open chat</button>
      <button id="close-chat" type="button" {{on "click" this.close}}>Close chat</button>
      <button id="re-render" type="button" {{on "click" this.rerender}}>Re-render ({{this.renders}})</button>
      <ol id="events">
        {{#each this.events as |entry|}}
          <li>{{entry}}</li>
        {{/each}}
      </ol>
      <svc-widget
        class="support-widget"
        public-key={{this.publicKey}}
        api={{this.api}}
        {{this.capture}}
        {{svcIdentify this.user}}
        {{on "svc:resize" this.resized}}
        {{on "svc:open" this.opened}}
        {{on "svc:close" this.closed}}
      ></svc-widget>
    </main>
  </template>
}
