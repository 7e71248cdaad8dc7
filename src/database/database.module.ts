import { Global, Module } from '@nestjs/common';
import { Notifications } from './notifications';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config';
import { buildDataSourceOptions } from './data-source-options';
import { OwnConnections } from './own-connections';
import { SessionLocks } from './session-locks';
import { Transactions } from './transactions';

@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => {
        if (!config.databaseUrl) throw new Error('the database URL must be resolved before the app module starts');
        return {
          ...buildDataSourceOptions(config.databaseUrl, config.databasePoolMode),
          retryAttempts: 3,
          retryDelay: 1000,
        };
      },
    }),
  ],
  providers: [Transactions, OwnConnections, SessionLocks, Notifications],
  exports: [Transactions, OwnConnections, SessionLocks, Notifications],
})
export class DatabaseModule {}
