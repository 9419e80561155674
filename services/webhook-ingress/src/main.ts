import { runService } from '@svc/kit';
import { WebhookIngressApp } from './app';
import { ingressConfig } from './config';

runService(() => new WebhookIngressApp(ingressConfig()));
