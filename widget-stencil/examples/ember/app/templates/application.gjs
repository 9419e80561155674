import { pageTitle } from 'ember-page-title';
import WidgetDemo from '../components/widget-demo';

<template>
  {{pageTitle "Ember + @svc-inbox/widget-ember"}}
  <WidgetDemo />
</template>
